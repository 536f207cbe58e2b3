import type { Hono } from 'hono';
import { migrationFiles, migrationStatus } from '../db/migrate';
import type { Deadlines } from '../db/database';
import type { AppDeps } from '../deps';

type Check = 'ok' | 'stopping' | 'unavailable' | 'pending' | 'edited' | 'stopped';

/**
 * How long a probe waits for the database, so that it answers within 2 s whatever the database
 * does: a database that hangs makes it say 503, as one that refuses does.
 */
const PROBE_DATABASE_MS = 1_500;

/**
 * `work`, or a rejection after PROBE_DATABASE_MS. It is given that deadline for its statements,
 * so that on PostgreSQL their connections are destroyed then instead of after
 * DATABASE_QUERY_TIMEOUT_MS; the race bounds the rest (a wait for a pooled connection, PGlite's queue).
 */
async function withinProbeTime<T>(work: (deadlines: Deadlines) => Promise<T>): Promise<T> {
  const answer = work({ queryMs: PROBE_DATABASE_MS });
  answer.catch(() => {});
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('the database did not answer the probe in time')), PROBE_DATABASE_MS);
  });
  try {
    return await Promise.race([answer, late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * What an orchestrator asks (Kubernetes' liveness and readiness, a load balancer's health check):
 * /live, the process answers; /ready, it can serve: not stopping, the database answers, every
 * migration of this version is applied as its file says, and the worker's loop turns when it runs
 * here. /healthz stays as it was, for the checks already pointed at it. /live never touches the
 * database; /ready and /healthz wait for it at most PROBE_DATABASE_MS.
 */
export function mountProbes(app: Hono, deps: AppDeps): void {
  const { db, lifecycle, worker } = deps;
  const files = migrationFiles({ platform: true });

  app.get('/live', (c) => c.json({ status: 'ok' }, 200, { 'Cache-Control': 'no-store' }));

  app.get('/ready', async (c) => {
    const checks: Record<string, Check> = { process: lifecycle?.stopping ? 'stopping' : 'ok' };
    try {
      const states = await withinProbeTime((deadlines) => db.transaction((tx) => migrationStatus(tx, files), deadlines));
      checks.database = 'ok';
      checks.migrations = states.some((s) => s.state === 'edited') ? 'edited' : states.some((s) => s.state === 'pending') ? 'pending' : 'ok';
    } catch {
      checks.database = 'unavailable';
    }
    if (worker) checks.worker = worker.alive() ? 'ok' : 'stopped';
    const ready = Object.values(checks).every((v) => v === 'ok');
    return c.json({ status: ready ? 'ready' : 'not ready', checks }, ready ? 200 : 503, { 'Cache-Control': 'no-store' });
  });

  app.get('/healthz', async (c) => {
    // Shutting down (shutdown.ts): a load balancer stops sending before the server stops answering.
    if (lifecycle?.stopping) return c.json({ status: 'stopping', database: db.kind }, 503);
    try {
      await withinProbeTime((deadlines) => db.batch([{ sql: 'select 1', params: [] }], deadlines));
      return c.json({ status: 'ok', database: db.kind });
    } catch {
      return c.json({ status: 'unavailable', database: db.kind }, 503);
    }
  });
}
