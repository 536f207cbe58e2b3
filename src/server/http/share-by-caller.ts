import type { Context, MiddlewareHandler } from 'hono';
import type { Database } from '../db/database';
import type { AppDeps } from '../deps';
import { CallerError, getCaller } from './caller';
import { addressKey, clientIp } from './client-ip';

/**
 * Whose share of the database a request's statements take (db/fair-share.ts): the signed-in
 * user's, from a verified token's `sub`, so that one user's requests count together from any
 * address; otherwise the client's address, as TRUST_PROXY reads it. An unverified `sub` is never
 * believed, or a caller could spread its work over made-up users, or spend someone else's share.
 * The request's handlers take that database from requestDeps.
 */
export function shareByCaller(deps: Pick<AppDeps, 'db' | 'keys' | 'config'>): MiddlewareHandler {
  return async (c, next) => {
    let key = `address:${addressKey(clientIp(c, deps.config.trustProxy))}`;
    try {
      const caller = await getCaller(c, deps.keys);
      if (caller.userId) key = `user:${caller.userId}`;
    } catch (e) {
      // The route refuses the token itself, in its own shape.
      if (!(e instanceof CallerError)) throw e;
    }
    shareAs(c, deps.db, key);
    await next();
  };
}

/** From here on, the request's statements count against `key`'s share of `db`. */
export function shareAs(c: Context, db: Database, key: string): void {
  c.set('db', db.forCaller?.(key) ?? db);
}

/**
 * The app's dependencies as this request's handlers use them: its database is its caller's view
 * (shareAs), passed on explicitly rather than through AsyncLocalStorage, whose promise hooks cost
 * every request on Node 20 (bench/README.md, issue 40).
 */
export function requestDeps<D extends { db: Database }>(c: Context, deps: D): D {
  const db = c.get('db') as Database | undefined;
  return db ? { ...deps, db } : deps;
}
