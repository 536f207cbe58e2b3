import type { Context } from 'hono';
import { classifyDbFailure } from '../db/db-failure';
import { toRestError } from '../rest/errors';

/** Our code for each status the database's refusals map to (PostgREST's mapping, rest/errors.ts). */
const CODES: Record<number, string> = {
  400: 'invalid_request',
  403: 'forbidden',
  404: 'not_found',
  409: 'conflict',
  429: 'rate_limited',
};

type RefusalStatus = 400 | 403 | 404 | 409 | 429;

/**
 * What the SQL functions raise, answered as the API's error: their own words (the dashboard shows
 * the same), with the status PostgREST would give (P0001 400, PTxyz xyz, 42501 403) and, when the
 * database adds one, its detail ("You need $10.00 but only have $2.00"). Anything else is rethrown:
 * a database that is away or busy gets the app's 503 with Retry-After, the rest its 500.
 */
export function answerRefusal(c: Context, e: unknown): Response {
  if (classifyDbFailure(e)) throw e;
  const r = toRestError(e, 'authenticated');
  const status = r.status as RefusalStatus;
  if (!CODES[status]) throw e;
  return c.json({ code: CODES[status], message: r.message, ...(r.details ? { details: r.details } : {}) }, status);
}
