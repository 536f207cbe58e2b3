import type { MiddlewareHandler } from 'hono';
import { cors } from 'hono/cors';
import { secureHeaders } from 'hono/secure-headers';
import { createHash } from 'node:crypto';
import { THEME_SCRIPT } from '../../shared/theme-script';
import { requestProtocol, type TrustProxy } from './client-ip';

/** The one inline script our pages carry, allowed by its hash: no other inline script runs. */
const themeScriptHash = `'sha256-${createHash('sha256').update(THEME_SCRIPT).digest('base64')}'`;

/**
 * Security headers on every response, hono/secure-headers' with our policy. HSTS only when the
 * request arrived over https, directly or through a proxy TRUST_PROXY trusts (issue 42: anyone
 * else's X-Forwarded-Proto is the client's own claim): on plain http a browser ignores it, and a
 * development host on http must stay reachable.
 */
export function securityHeaders(opts: { connectSrc: string[]; trustProxy: TrustProxy }): MiddlewareHandler {
  const common: NonNullable<Parameters<typeof secureHeaders>[0]> = {
    contentSecurityPolicy: {
      defaultSrc: ["'self'"],
      scriptSrc: ["'self'", themeScriptHash],
      // Radix positions popovers with inline style attributes; scripts stay 'self' and the theme's hash.
      styleSrc: ["'self'", "'unsafe-inline'"],
      imgSrc: ["'self'", 'data:', 'https:'],
      fontSrc: ["'self'", 'data:'],
      connectSrc: ["'self'", ...opts.connectSrc],
      objectSrc: ["'none'"],
      baseUri: ["'self'"],
      formAction: ["'self'"],
      frameAncestors: ["'none'"],
    },
    referrerPolicy: 'strict-origin-when-cross-origin',
    xFrameOptions: 'DENY',
    // The API answers other origins by design (Access-Control-Allow-Origin: *).
    crossOriginResourcePolicy: false,
    permissionsPolicy: { camera: [], microphone: [], geolocation: [] },
    // Off: hono's defaults for browsers we do not support (X-XSS-Protection, X-Download-Options,
    // X-Permitted-Cross-Domain-Policies) or hints that protect nothing (X-DNS-Prefetch-Control,
    // Origin-Agent-Cluster), and the removal of an X-Powered-By nothing here sends. Together they
    // cost every answer about 90k instructions, 5 % of a REST read (bench/README.md, issue 22).
    xXssProtection: false,
    xDownloadOptions: false,
    xPermittedCrossDomainPolicies: false,
    xDnsPrefetchControl: false,
    originAgentCluster: false,
    removePoweredBy: false,
  };
  const overHttp = secureHeaders({ ...common, strictTransportSecurity: false });
  const overHttps = secureHeaders({ ...common, strictTransportSecurity: 'max-age=63072000; includeSubDomains' });
  return (c, next) => {
    return (requestProtocol(c, opts.trustProxy) === 'https' ? overHttps : overHttp)(c, next);
  };
}

const EXPOSED_HEADERS = ['X-Supabase-Api-Version', 'Content-Range', 'Content-Location', 'Location', 'Preference-Applied', 'x-sb-error-code', 'Retry-After'];

/** Preflights: what supabase-js sends, and what it must be able to read. */
const preflight = cors({
  origin: '*',
  allowMethods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
  allowHeaders: [
    'authorization',
    'apikey',
    'content-type',
    'x-client-info',
    'x-supabase-api-version',
    'accept-profile',
    'content-profile',
    'prefer',
    'range',
    'x-retry-count',
    'x-region',
    'traceparent',
    'tracestate',
    'baggage',
  ],
  exposeHeaders: EXPOSED_HEADERS,
  maxAge: 86400,
});

const API_HEADERS: [string, string][] = [
  ['Access-Control-Allow-Origin', '*'],
  ['Access-Control-Expose-Headers', EXPOSED_HEADERS.join(',')],
  // Answers carry tokens, keys and balances: no browser or proxy cache keeps one.
  ['Cache-Control', 'no-store'],
];

/**
 * CORS and no caching for the Supabase-style APIs. hono/cors answers the preflights. On other requests the same
 * headers are prepared before the handler runs: hono/cors writes them to the response first, which
 * makes every answer be copied into a full WHATWG Response, a tenth of a simple read's CPU
 * (bench/README.md, case 1).
 */
export const apiCors: MiddlewareHandler = async (c, next) => {
  if (c.req.method === 'OPTIONS') return preflight(c, next);
  for (const [k, v] of API_HEADERS) c.header(k, v);
  await next();
  // A Response the handler built itself never saw the prepared headers.
  if (!c.res.headers.has('Access-Control-Allow-Origin')) for (const [k, v] of API_HEADERS) c.res.headers.set(k, v);
};
