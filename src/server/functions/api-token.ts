import type { Context } from 'hono';
import { apiTokenMessages, createApiTokenSchema } from '../../shared/api-tokens';
import { messages } from '../../shared/validation';
import { apiTokenPrefix, generateApiToken, hashApiToken } from '../api/token-auth';
import { isDbError } from '../db/database';
import { withClaims } from '../db/with-claims';
import type { AppDeps } from '../deps';
import { fail, invalid, jsonBody, overLimit } from './function-response';
import { signedInPastSecondFactor } from './second-factor';

/** Far more than a person makes by hand; a script that loops is stopped. */
const LIMIT = { max: 30, windowSeconds: 3600 };

/** The SQL function's refusals (migration 0055) as HTTP answers. */
const STATUS_OF: Record<string, 400 | 403 | 409> = { '22023': 400, '42501': 403, PT409: 409 };

/**
 * api-token: makes a token for the signed-in caller past the second factor they enrolled, and
 * answers its secret once; only its SHA-256 is kept. An API token cannot call this (it is not a
 * JWT, so the caller check refuses it), and the database refuses its claims besides.
 */
export async function apiToken(deps: AppDeps, c: Context) {
  const caller = await signedInPastSecondFactor(deps, c, messages.notAuthenticated);
  if (caller instanceof Response) return caller;
  const read = await jsonBody(c);
  if ('error' in read) return fail(c, 400, read.error);
  const parsed = createApiTokenSchema.safeParse(read.body);
  if (!parsed.success) return invalid(c, parsed.error);
  const limited = await overLimit(deps, c, `api-token:user:${caller.userId}`, LIMIT, (wait) => apiTokenMessages.tooManyCreations(Math.ceil(wait / 60)));
  if (limited) return limited;
  const { name, scopes, expiresInDays, allowedIps } = parsed.data;
  const token = generateApiToken();
  try {
    const id = await withClaims(deps.db, { role: 'authenticated', claims: caller.claims }, async (tx) => {
      const { rows } = await tx.query<{ id: string }>('select private.create_api_token($1, $2, $3, $4::cidr[], $5, $6) as id', [
        name,
        scopes,
        expiresInDays,
        allowedIps,
        apiTokenPrefix(token),
        hashApiToken(token),
      ]);
      return rows[0]!.id;
    });
    return c.json({ id, token }, 200, { 'Cache-Control': 'no-store' });
  } catch (e) {
    if (!isDbError(e) || !STATUS_OF[e.code!]) throw e;
    return fail(c, STATUS_OF[e.code!]!, e.message);
  }
}
