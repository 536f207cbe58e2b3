import type { Context } from 'hono';
import { getConnInfo } from '@hono/node-server/conninfo';
import proxyaddr from 'proxy-addr';

/**
 * Which proxies in front of the server may say who the client is, in X-Forwarded-For: none
 * (false), the last `hops` of them, or those at these addresses and ranges (proxy-addr's terms:
 * IPs, CIDR ranges, and loopback, linklocal, uniquelocal).
 */
export type TrustProxy = false | { hops: number } | { addresses: string[] };

/** TRUST_PROXY's value, or undefined when proxy-addr cannot read it. */
export function parseTrustProxy(v: string): TrustProxy | undefined {
  const s = v.trim().toLowerCase();
  if (s === '' || s === 'false' || s === '0') return false;
  // One proxy that you run in front of the server: the usual set-up.
  if (s === 'true') return { hops: 1 };
  if (/^\d+$/.test(s)) return Number(s) <= 32 ? { hops: Number(s) } : undefined;
  const addresses = s
    .split(',')
    .map((a) => a.trim())
    .filter(Boolean);
  try {
    proxyaddr.compile(addresses);
    return { addresses };
  } catch {
    return undefined;
  }
}

// Compiled once per configuration.
const compiled = new WeakMap<object, (addr: string, hop: number) => boolean>();
function trustFunction(trust: Exclude<TrustProxy, false>): (addr: string, hop: number) => boolean {
  let fn = compiled.get(trust);
  if (!fn) {
    fn = 'hops' in trust ? (_addr: string, hop: number) => hop < trust.hops : proxyaddr.compile(trust.addresses);
    compiled.set(trust, fn);
  }
  return fn;
}

/**
 * Whether a peer at `address` is a proxy TRUST_PROXY trusts. With a number of hops, every peer is
 * the first of them; with addresses, only those.
 */
export function isTrustedProxy(address: string, trust: TrustProxy): boolean {
  return trust !== false && trustFunction(trust)(address, 0);
}

/** The address of the peer on the connection: the client, or the proxy in front of it. */
function peerAddress(c: Context): string | undefined {
  try {
    return getConnInfo(c).remote.address;
  } catch {
    return undefined;
  }
}

/**
 * The client's address for rate limits. X-Forwarded-For is read from the right, and only across
 * the proxies TRUST_PROXY trusts (proxy-addr): the left-most entry is whatever the client wrote,
 * so trusting it would let any client pick its own address and escape its limit.
 */
export function clientIp(c: Context, trust: TrustProxy): string {
  const remote = peerAddress(c);
  if (!trust || !remote) return remote ?? 'unknown';
  const forwarded = c.req.header('x-forwarded-for');
  const req = { socket: { remoteAddress: remote }, connection: { remoteAddress: remote }, headers: forwarded ? { 'x-forwarded-for': forwarded } : {} };
  return proxyaddr(req as unknown as Parameters<typeof proxyaddr>[0], trustFunction(trust));
}

/**
 * The scheme the client used: X-Forwarded-Proto only when the peer is a proxy TRUST_PROXY trusts
 * (its first value, as Express reads it), else the connection's own. From anyone else the header
 * is whatever the client wrote.
 */
export function requestProtocol(c: Context, trust: TrustProxy): string {
  const own = new URL(c.req.url).protocol.slice(0, -1);
  const forwarded = c.req.header('x-forwarded-proto');
  if (!forwarded || !trust) return own;
  const remote = peerAddress(c);
  if (!remote || !isTrustedProxy(remote, trust)) return own;
  return forwarded.split(',')[0]!.trim().toLowerCase();
}

/**
 * What one client counts as, for its connections (http-server.ts) and its share of the database
 * (share-by-caller.ts): an IPv4 address, or an IPv6 address's /64, since one IPv6 host commonly
 * holds a whole /64 and could otherwise pick a new address per connection or request. An
 * IPv4-mapped IPv6 address counts as its IPv4 address.
 */
export function addressKey(address: string): string {
  const plain = address.replace(/%.*$/, '').toLowerCase();
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(plain);
  if (mapped) return mapped[1]!;
  if (!plain.includes(':')) return plain;
  const [head = '', tail] = plain.split('::');
  const groups = (s: string) => (s === '' ? [] : s.split(':').flatMap((g) => (g.includes('.') ? ['0', '0'] : [g])));
  const left = groups(head);
  const right = tail === undefined ? [] : groups(tail);
  const all = [...left, ...Array<string>(Math.max(0, 8 - left.length - right.length)).fill('0'), ...right];
  return `${all
    .slice(0, 4)
    .map((g) => parseInt(g, 16).toString(16))
    .join(':')}::/64`;
}
