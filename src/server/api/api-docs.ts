import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import { Hono } from 'hono';

const require = createRequire(import.meta.url);

/**
 * The reference page for /api/v1 at /docs/api: Scalar's viewer, served from our own origin (no
 * CDN, no third-party script: decision 047), reading /api/openapi.json. Its bundle is read and
 * gzipped once, on the first request, so a server nobody asks never holds its 5 MB.
 */
const PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>NodeHarbor API reference</title>
  </head>
  <body>
    <div id="app"></div>
    <script src="/docs/api/scalar.js"></script>
    <script src="/docs/api/init.js"></script>
  </body>
</html>
`;

/**
 * Scalar's settings: no fonts from its servers (the page's CSP allows none), no proxy, no client
 * that would call other hosts, no toolbar of links to Scalar's services, and the samples the
 * document carries (x-codeSamples).
 */
const INIT = `Scalar.createApiReference('#app', ${JSON.stringify({
  url: '/api/openapi.json',
  withDefaultFonts: false,
  hideClientButton: true,
  showDeveloperTools: 'never',
  hideTestRequestButton: true,
  telemetry: false,
  agent: { disabled: true },
  mcp: { disabled: true },
})});
`;

type Bundle = { body: Buffer; gzipped: Buffer; etag: string };
let bundle: Promise<Bundle> | undefined;

function loadBundle(): Promise<Bundle> {
  bundle ??= (async () => {
    // The package exports no path to its browser bundle; it sits beside its entry point.
    const body = await readFile(join(dirname(require.resolve('@scalar/api-reference')), 'browser', 'standalone.js'));
    const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
    return { body, gzipped: await promisify(gzip)(body), etag };
  })();
  bundle.catch(() => (bundle = undefined));
  return bundle;
}

export function apiDocsRoutes() {
  const app = new Hono();
  app.get('/', (c) => c.html(PAGE, 200, { 'Cache-Control': 'no-cache' }));
  app.get('/init.js', (c) => c.body(INIT, 200, { 'Content-Type': 'text/javascript; charset=utf-8', 'Cache-Control': 'no-cache' }));
  app.get('/scalar.js', async (c) => {
    const { body, gzipped, etag } = await loadBundle();
    const headers: Record<string, string> = {
      'Content-Type': 'text/javascript; charset=utf-8',
      'Cache-Control': 'no-cache',
      ETag: etag,
      Vary: 'Accept-Encoding',
    };
    if (c.req.header('if-none-match') === etag) return c.body(null, 304, headers);
    // Every browser takes gzip; the bundle is a fifth of its size so.
    if (/\bgzip\b/.test(c.req.header('accept-encoding') ?? '')) return c.body(new Uint8Array(gzipped), 200, { ...headers, 'Content-Encoding': 'gzip' });
    return c.body(new Uint8Array(body), 200, headers);
  });
  return app;
}
