import { isIPv6 } from 'node:net';
import type { MiddlewareHandler } from 'hono';
import type { AppDeps } from '../deps';
import { runAs } from '../db/fair-share';
import { CallerError, getCaller } from './caller';
import { clientIp } from './client-ip';

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

/**
 * The address a share is counted for. An IPv6 client is usually given a whole /64 to pick its
 * addresses from, so it counts as one; an IPv4-mapped address is its IPv4 address.
 */
export function addressKey(ip: string): string {
  const address = ip.replace(/%.*$/, '').toLowerCase();
  if (!isIPv6(address)) return address;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(address);
  if (mapped) return mapped[1]!;
  const [head = '', tail] = address.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = tail === undefined ? left : [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  return `${groups.slice(0, 4).map((g) => parseInt(g, 16).toString(16)).join(':')}::/64`;
}
