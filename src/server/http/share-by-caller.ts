import type { MiddlewareHandler } from 'hono';
import type { AppDeps } from '../deps';
import { runAs } from '../db/fair-share';
import { CallerError, getCaller } from './caller';
import { addressKey, clientIp } from './client-ip';

/**
 * Whose share of the database a request's statements take (db/fair-share.ts): the signed-in
 * user's, from a verified token's `sub`, so that one user's requests count together from any
 * address; otherwise the client's address, as TRUST_PROXY reads it. An unverified `sub` is never
 * believed, or a caller could spread its work over made-up users, or spend someone else's share.
 */
export function shareByCaller(deps: Pick<AppDeps, 'keys' | 'config'>): MiddlewareHandler {
  return async (c, next) => {
    let key = `address:${addressKey(clientIp(c, deps.config.trustProxy))}`;
    try {
      const caller = await getCaller(c, deps.keys);
      if (caller.userId) key = `user:${caller.userId}`;
    } catch (e) {
      // The route refuses the token itself, in its own shape.
      if (!(e instanceof CallerError)) throw e;
    }
    await runAs(key, next);
  };
}
