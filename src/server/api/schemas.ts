import { z } from '@hono/zod-openapi';

/** The body of every refusal under /api/v1. */
export const ApiError = z.object({ code: z.string(), message: z.string() }).openapi('Error');

export const errorResponses = {
  401: { description: 'Missing, unknown, revoked or expired token', content: { 'application/json': { schema: ApiError } } },
  403: { description: 'Token lacks the scope, or the address is not allowed', content: { 'application/json': { schema: ApiError } } },
  429: { description: 'Too many requests for this token', content: { 'application/json': { schema: ApiError } } },
} as const;
