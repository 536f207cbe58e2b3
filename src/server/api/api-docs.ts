import { Hono } from 'hono';

/**
 * The reference page for /api/v1 at /docs/api: Scalar's viewer, served from our own origin (no
 * CDN, no third-party script: decision 047), reading /api/openapi.json. Its bundle,
 * /docs/api/scalar.js, is a static file of the web build (scripts/build-web.mjs).
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

export function apiDocsRoutes() {
  const app = new Hono();
  app.get('/', (c) => c.html(PAGE, 200, { 'Cache-Control': 'no-cache' }));
  app.get('/init.js', (c) => c.body(INIT, 200, { 'Content-Type': 'text/javascript; charset=utf-8', 'Cache-Control': 'no-cache' }));
  return app;
}
