// The floor of case 1's request path (issue 40): a bare Hono handler that verifies the reader's JWT
// with the server's verifyJwt and runs the server's own statement for GET /rest/v1/services through
// the server's own Database as bootstrap builds it (its pool, prepared batch, encryption keys and
// the pool's fair share), and answers its body. No routing beyond one route, no schema cache, no
// parse or plan, no logging, no request id, no share-by-caller middleware, no CORS or security
// headers, no apikey check: whatever the server spends beyond this is the list in
// bench/README.md. Run as the server runs: one process per core on PostgreSQL (node:cluster, each
// process accepting on the one listening socket, as decision 034's processes do), one on PGlite.
// Listens on PORT and HOST, as the server; GET /healthz answers 200 once a process listens.
import cluster from 'node:cluster';
import { availableParallelism } from 'node:os';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { verifyJwt } from '../../src/server/auth/tokens';
import { bootstrap } from '../../src/server/bootstrap';
import { loadConfigOrExit } from '../../src/server/env';
import { queryWithClaims } from '../../src/server/db/with-claims';
import type { ResultRow } from '../../src/server/rest/build-sql';
import { servicesRead } from './statements';

const config = loadConfigOrExit();
const processes = config.databaseUrl ? config.webConcurrency || availableParallelism() : 1;

if (cluster.isPrimary && processes > 1) {
  // SCHED_NONE: the primary opens the socket and every process accepts on it, as the server's do.
  cluster.schedulingPolicy = cluster.SCHED_NONE;
  for (let i = 0; i < processes; i++) cluster.fork();
  process.on('SIGTERM', () => {
    for (const w of Object.values(cluster.workers ?? {})) w?.kill('SIGTERM');
    process.exit(0);
  });
} else {
  const deps = await bootstrap(config, { prepared: true });
  const statement = await servicesRead(deps.db);
  const app = new Hono();
  app.get('/healthz', (c) => c.body(null, 200));
  // The query is the statement's (SERVICES_QUERY), built once.
  app.get('/rest/v1/services', async (c) => {
    const m = /^Bearer (.+)$/.exec(c.req.header('authorization') ?? '');
    if (!m) return c.body(null, 401);
    const claims = await verifyJwt(deps.keys, m[1]!);
    const ctx = { role: 'authenticated', claims, method: 'GET', path: '/services', headers: c.req.header(), readOnly: true, statementTimeout: '8s' } as const;
    const { rows } = await queryWithClaims<ResultRow>(deps.db, ctx, statement);
    return c.body(rows[0]!.body ?? '[]', 200, { 'content-type': 'application/json; charset=utf-8' });
  });
  serve({ fetch: app.fetch, port: config.port, hostname: config.host });
  process.on('SIGTERM', () => process.exit(0));
}
