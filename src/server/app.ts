import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { authRoutes } from './auth/auth.routes';
import type { AppDeps } from './deps';
import { functionRoutes } from './functions/functions.routes';
import { requestIdOf, requestIds } from './http/request-context';
import { requestLog } from './http/request-log';
import { shareByCaller } from './http/share-by-caller';
import { classifyDbFailure, failureMessage } from './db/db-failure';
import { apiCors, securityHeaders } from './http/security';
import { mountProbes } from './http/probes';
import { mountStatic } from './http/static';
import { apiDocsRoutes } from './api/api-docs';
import { apiRoutes } from './api/api.routes';
import { statusRoutes } from './status/status.routes';
import { createMetrics } from './metrics/metrics';
import { paymentRoutes } from './payments/payments.routes';
import { restRoutes } from './rest/rest.routes';

/** Builds the whole HTTP app. Tests build it the same way, on a real database. */
export function createApp(deps: AppDeps): Hono {
  const { config, keys, logger } = deps;
  const app = new Hono();
  const metrics = createMetrics(deps);
  app.use(metrics.countRequests);
  app.use(requestIds);
  app.use(requestLog(logger));
  // The browser calls the API at the site's own address, wherever the page was opened from.
  app.use(securityHeaders({ connectSrc: [new URL(config.publicUrl).origin], trustProxy: config.trustProxy }));
  app.use('/auth/v1/*', apiCors);
  app.use('/rest/v1/*', apiCors);
  app.use('/functions/v1/*', apiCors);
  const share = shareByCaller(deps);
  // /api/v1 by address until its token is known; then by its owner (api/token-auth.ts).
  for (const path of ['/auth/v1/*', '/rest/v1/*', '/functions/v1/*', '/payments/*', '/api/*']) app.use(path, share);
  const limitBody = bodyLimit({
    maxSize: config.bodyLimitBytes,
    onError: (c) => c.json({ code: 'PGRST413', message: 'Request body too large', details: null, hint: null }, 413),
  });
  // NOTE: the limit looks at the request's body stream, for which @hono/node-server builds a whole
  // Request object; no GET or HEAD handler reads a body, so they skip it (bench/README.md, case 1).
  app.use('*', (c, next) => (c.req.method === 'GET' || c.req.method === 'HEAD' ? next() : limitBody(c, next)));

  mountProbes(app, deps);

  app.get('/metrics', metrics.serve);

  app.get('/config.json', (c) =>
    c.json(
      {
        // Never the request's Host header, which whoever sends the request chooses.
        supabaseUrl: config.publicUrl,
        supabaseAnonKey: keys.anonKey,
        registrationEnabled: config.registrationEnabled,
        devHostSuffixes: config.devHostSuffixes,
        statusUrl: config.statusUrl ?? null,
        suspensionDays: config.suspensionDays,
        testPayments: config.testPaymentsChosen,
        cryptoPayments: config.nowPayments !== undefined,
      },
      200,
      { 'Cache-Control': 'no-cache' },
    ),
  );

  app.route('/auth/v1', authRoutes(deps));
  app.route('/rest/v1', restRoutes(deps));
  app.route('/functions/v1', functionRoutes(deps));
  app.route('/payments', paymentRoutes(deps));
  app.route('/api', apiRoutes(deps));
  app.route('/docs/api', apiDocsRoutes());
  app.route('/', statusRoutes(deps));

  app.onError((err, c) => {
    // The database's passing failures are logged once per incident (db/outage-log.ts), not here.
    const failure = classifyDbFailure(err);
    if (failure) return c.json({ code: failure.code, message: failureMessage(failure) }, failure.status, { 'Retry-After': String(failure.retryAfter) });
    logger.error('unhandled error', { path: c.req.path, requestId: requestIdOf(c), err });
    return c.json({ code: 'unexpected_failure', message: 'Internal server error' }, 500);
  });

  if (deps.webDir) mountStatic(app, deps.webDir);
  else app.notFound((c) => c.json({ message: 'Not found' }, 404));
  return app;
}
