import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { crc32 } from 'node:zlib';
import type { Context, MiddlewareHandler } from 'hono';
import {
  API_TOKEN_DISPLAY_PREFIX_LENGTH,
  API_TOKEN_PATTERN,
  API_TOKEN_PREFIX,
  API_TOKEN_REQUESTS_PER_MINUTE,
  apiTokenMessages,
  ipAllowed,
  type ApiScope,
} from '../../shared/api-tokens';
import type { Queryable } from '../db/database';
import { requestDeps, shareAs } from '../http/share-by-caller';
import { withClaims } from '../db/with-claims';
import type { AppDeps } from '../deps';
import { clientIp } from '../http/client-ip';
import { requestIdOf } from '../http/request-context';
import { hitRateLimit } from '../http/rate-limit';
import ipaddr from 'ipaddr.js';

/** Who a request to /api/v1 acts as: the token's owner, within the token's scopes. */
export type ApiCaller = { tokenId: string; userId: string; scopes: readonly ApiScope[] };

type Env = { Variables: { apiCaller: ApiCaller } };

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const RANDOM_LENGTH = 30;
const CHECKSUM_LENGTH = 6;

/** The CRC32 of the random part in 6 base62 characters (62^6 > 2^32), as GitHub's tokens carry one. */
function checksum(random: string): string {
  let n = crc32(random);
  let out = '';
  for (let i = 0; i < CHECKSUM_LENGTH; i++) {
    out = BASE62[n % 62]! + out;
    n = Math.floor(n / 62);
  }
  return out;
}

/** A new token: 30 characters from the CSPRNG (about 178 bits), unbiased by rejection, then the checksum. */
export function generateApiToken(): string {
  let random = '';
  while (random.length < RANDOM_LENGTH) {
    for (const byte of randomBytes(RANDOM_LENGTH * 2)) {
      // 248 = 4 × 62: bytes above it would favour the first characters.
      if (byte < 248 && random.length < RANDOM_LENGTH) random += BASE62[byte % 62];
    }
  }
  return `${API_TOKEN_PREFIX}${random}${checksum(random)}`;
}

/** Whether `token` has the format and a checksum that matches: offline, with no database read. */
export function isWellFormedApiToken(token: string): boolean {
  if (!API_TOKEN_PATTERN.test(token)) return false;
  const body = token.slice(API_TOKEN_PREFIX.length);
  return body.slice(RANDOM_LENGTH) === checksum(body.slice(0, RANDOM_LENGTH));
}

/** What is stored of a token: the SHA-256 of all of it, in hex (decision 046: why not a slow hash). */
export function hashApiToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** What the list shows of a token, to tell it apart. */
export function apiTokenPrefix(token: string): string {
  return token.slice(0, API_TOKEN_DISPLAY_PREFIX_LENGTH);
}

type TokenRow = {
  id: string;
  user_id: string;
  token_hash: string;
  scopes: ApiScope[];
  allowed_ips: string[];
  usable: boolean;
  record_use: boolean;
};

const deny = (c: Context, status: 401 | 403 | 429, code: string, message: string) => c.json({ code, message }, status);

/**
 * Hono middleware for /api/v1/*: `Authorization: Bearer nhp_…` → the token's owner, or an answer:
 * 401 {code:'invalid_token', message} (missing, malformed, bad checksum, unknown, revoked, expired, owner banned/deleted),
 * 403 {code:'ip_not_allowed', message} (outside its allow-list), 429 {code:'rate_limited', message} + Retry-After
 * (API_TOKEN_REQUESTS_PER_MINUTE per token). Records last_used_at and last_used_ip (at most once a minute a token).
 * The token itself is never logged nor kept: only its hash is looked up.
 */
export function apiTokenAuth(deps: Pick<AppDeps, 'db' | 'logger' | 'config'>): MiddlewareHandler<Env> {
  return async (c, next) => {
    const header = c.req.header('authorization');
    if (!header) return deny(c, 401, 'invalid_token', apiTokenMessages.missingToken);
    const token = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header)?.[1];
    // Noise, or a token someone mistyped, is refused before the database is asked.
    if (!token || !isWellFormedApiToken(token)) return deny(c, 401, 'invalid_token', apiTokenMessages.invalidToken);
    const hash = hashApiToken(token);
    // By the client's address until the token's owner is known.
    const { db } = requestDeps(c, deps);
    const { rows } = await db.query<TokenRow>(
      `select t.id, t.user_id, t.token_hash, t.scopes, t.allowed_ips::text[] as allowed_ips,
              t.revoked_at is null and (t.expires_at is null or t.expires_at > now())
                and u.deleted_at is null and not coalesce(u.banned_until > now(), false) as usable,
              t.last_used_at is null or t.last_used_at <= now() - interval '1 minute' as record_use
         from private.api_tokens t join auth.users u on u.id = t.user_id
        where t.token_hash = $1`,
      [hash],
      'api-token-auth',
    );
    const row = rows[0];
    // The index found the row by its hash; comparing in constant time costs nothing and leaves no
    // timing to read should the lookup ever change.
    if (!row || !timingSafeEqual(Buffer.from(row.token_hash), Buffer.from(hash)) || !row.usable) {
      return deny(c, 401, 'invalid_token', apiTokenMessages.invalidToken);
    }
    const address = clientIp(c, deps.config.trustProxy);
    if (row.allowed_ips.length > 0 && !ipAllowed(address, row.allowed_ips)) {
      return deny(c, 403, 'ip_not_allowed', apiTokenMessages.ipNotAllowed);
    }
    if (deps.config.rateLimitsEnabled) {
      const wait = await hitRateLimit(db, `api:token:${row.id}`, { max: API_TOKEN_REQUESTS_PER_MINUTE, windowSeconds: 60 });
      if (wait > 0) {
        c.header('Retry-After', String(wait));
        return deny(c, 429, 'rate_limited', apiTokenMessages.rateLimited(wait));
      }
    }
    if (row.record_use) {
      const ip = ipaddr.isValid(address) ? ipaddr.process(address.replace(/%.*$/, '')).toString() : null;
      await db.query(
        `update private.api_tokens set last_used_at = now(), last_used_ip = $2::inet
          where id = $1 and (last_used_at is null or last_used_at <= now() - interval '1 minute')`,
        [row.id, ip],
      );
    }
    c.set('apiCaller', { tokenId: row.id, userId: row.user_id, scopes: row.scopes });
    // The owner's share of the database, the same as their dashboard's (http/share-by-caller.ts).
    shareAs(c, deps.db, `user:${row.user_id}`);
    await next();
  };
}

/** 403 {code:'insufficient_scope', message} unless the token has `scope`. */
export function requireScope(scope: ApiScope): MiddlewareHandler<Env> {
  return async (c, next) => {
    if (!c.get('apiCaller').scopes.includes(scope)) return deny(c, 403, 'insufficient_scope', apiTokenMessages.insufficientScope(scope));
    await next();
  };
}

/** An operation's scope, in the document (`x-required-scope`) and enforced, from one word. */
export const requires = (scope: ApiScope) => ({ 'x-required-scope': scope, middleware: requireScope(scope) });

/**
 * Runs `fn` in one transaction as the token's owner (withClaims, role authenticated, claims
 * {sub, role:'authenticated', aal:'aal2', amr:[{method:'api_token',timestamp}], token_id}), so RLS and the
 * SQL functions' own checks apply; those that change credentials refuse amr 'api_token' (migration 0055).
 */
export function asTokenOwner<T>(deps: Pick<AppDeps, 'db'>, c: Context, fn: (tx: Queryable) => Promise<T>, opts?: { readOnly?: boolean }): Promise<T> {
  const caller = (c as Context<Env>).get('apiCaller');
  const claims = {
    sub: caller.userId,
    role: 'authenticated',
    aal: 'aal2',
    amr: [{ method: 'api_token', timestamp: Math.floor(Date.now() / 1000) }],
    token_id: caller.tokenId,
  };
  return withClaims(
    deps.db,
    { role: 'authenticated', claims, method: c.req.method, path: c.req.path, requestId: requestIdOf(c), readOnly: opts?.readOnly },
    fn,
  );
}
