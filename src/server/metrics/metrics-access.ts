import { createHash, timingSafeEqual } from 'node:crypto';
import proxyaddr from 'proxy-addr';
import { isTrustedProxy, type TrustProxy } from '../http/client-ip';

/** What a request to /metrics brings that decides whether it is answered. */
export type MetricsRequest = {
  /** The real socket's peer address (never a forwarded one). */
  peer: string | undefined;
  authorization: string | undefined;
  /** Whether it carries X-Forwarded-For, Forwarded or X-Real-IP: a proxy's, or one pretending to be. */
  forwarded: boolean;
};

export type MetricsAccess = { allowed: true } | { allowed: false; status: 401 | 403; message: string };

export const TOKEN_REQUIRED = 'A valid metrics token is required: Authorization: Bearer <METRICS_TOKEN>';
export const LOCAL_ONLY = 'Metrics are served only to this machine; set METRICS_TOKEN to scrape them from elsewhere';

const isLoopback = proxyaddr.compile('loopback');

// Hashed first: timingSafeEqual needs equal lengths, and a digest's says nothing of the token's.
const digest = (s: string) => createHash('sha256').update(s).digest();

/**
 * Whether /metrics answers. With METRICS_TOKEN, only to `Authorization: Bearer <token>`, compared
 * in constant time, from anywhere. Without it, only to a client on this machine: the socket's peer
 * is a loopback address, is not a proxy TRUST_PROXY names (its requests are other machines'), and
 * the request names no forwarded client (a proxy on this machine that TRUST_PROXY does not know).
 */
export function metricsAccess(req: MetricsRequest, token: string | undefined, trust: TrustProxy): MetricsAccess {
  if (token !== undefined) {
    const given = /^Bearer +(\S+) *$/i.exec(req.authorization ?? '')?.[1];
    const ok = given !== undefined && timingSafeEqual(digest(given), digest(token));
    return ok ? { allowed: true } : { allowed: false, status: 401, message: TOKEN_REQUIRED };
  }
  const local = req.peer !== undefined && isLoopback(req.peer, 0) && !isTrustedProxy(req.peer, trust) && !req.forwarded;
  return local ? { allowed: true } : { allowed: false, status: 403, message: LOCAL_ONLY };
}
