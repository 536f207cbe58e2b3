import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { ZodError } from 'zod';
import type { RequestContext } from '../db/with-claims';
import type { AppDeps } from '../deps';
import { clientIp } from '../http/client-ip';
import { requestIdOf } from '../http/request-context';
import { hitRateLimit, type Limit } from '../http/rate-limit';
import { BODY_NOT_RECEIVED, containsNul, JSON_TOO_DEEP, parseJsonBody, readBodyText } from '../http/json-body';

/**
 * Functions answer errors as JSON: supabase-js hands a non-2xx Response to the app as
 * `error.context`, and the app reads the message with `await error.context.json()`.
 */
export function fail(c: Context, status: ContentfulStatusCode, error: string, extra: Record<string, unknown> = {}) {
  return c.json({ error, ...extra }, status);
}

/** The 400 for a body the shared schema refused: its first message, and every issue for a form. */
export function invalid(c: Context, error: ZodError) {
  const issues = error.issues.map((i) => ({ path: i.path.join('.'), message: i.message }));
  return fail(c, 400, issues[0]!.message, { issues });
}

/**
 * Counts this call against `key` (when RATE_LIMITS_ENABLED); over the limit, the 429 to answer,
 * with Retry-After and `message(seconds)`, otherwise undefined.
 */
export async function overLimit(deps: Pick<AppDeps, 'config' | 'db'>, c: Context, key: string, limit: Limit, message: (wait: number) => string) {
  if (!deps.config.rateLimitsEnabled) return undefined;
  const wait = await hitRateLimit(deps.db, key, limit);
  if (wait === 0) return undefined;
  c.header('Retry-After', String(wait));
  return fail(c, 429, message(wait));
}

export type BodyResult = { body: Record<string, unknown> } | { error: string };

/** The JSON object in the body, or the message of a 400 when there is none. */
export async function jsonBody(c: Context): Promise<BodyResult> {
  const text = await readBodyText(c);
  if (text === undefined) return { error: BODY_NOT_RECEIVED };
  const parsed = parseJsonBody(text);
  if (!parsed.ok) return { error: parsed.reason === 'too-deep' ? JSON_TOO_DEEP : 'Invalid JSON body' };
  const value = parsed.value;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { error: 'Invalid JSON body' };
  // PostgreSQL text cannot hold U+0000: refuse it here rather than fail in the database.
  if (containsNul(value)) return { error: 'The request must not contain NUL (\\u0000) characters' };
  return { body: value as Record<string, unknown> };
}

/**
 * The database context of a signed-in caller's function call (withClaims, setClaims): their claims,
 * and the request's headers and address, which the admin audit log records.
 */
export function callerContext(
  deps: Pick<AppDeps, 'config'>,
  c: Context,
  caller: { claims: Record<string, unknown> },
  opts: Pick<RequestContext, 'readOnly'> = {},
): RequestContext {
  return {
    role: 'authenticated',
    claims: caller.claims,
    headers: c.req.header(),
    clientAddress: clientIp(c, deps.config.trustProxy),
    requestId: requestIdOf(c),
    ...opts,
  };
}
