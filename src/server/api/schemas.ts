import { z } from '@hono/zod-openapi';

/** The body of every refusal under /api/v1. */
export const ApiError = z
  .object({
    code: z.string().openapi({ example: 'invalid_request' }),
    message: z.string().openapi({ example: 'Service name is required' }),
    details: z.string().optional().openapi({ description: 'More about the refusal, when there is more to say' }),
  })
  .openapi('Error');

const error = (description: string) => ({ description, content: { 'application/json': { schema: ApiError } } });

/** What any operation may answer: the token's own refusals (token-auth.ts). */
export const errorResponses = {
  401: error('Missing, unknown, revoked or expired token'),
  403: error('Token lacks the scope, or the address is not allowed'),
  429: error('Too many requests for this token, or for this service'),
};

/** What an operation on one service may answer besides: invalid input or a refusal of the database's rules, and another user's or a missing service. */
export const serviceRefusals = {
  400: error('Invalid input, or refused by the service rules (the message says which)'),
  404: error('No such service of yours'),
  409: error('The service is in a state that does not allow this'),
};
