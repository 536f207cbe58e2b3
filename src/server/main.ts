import cluster from 'node:cluster';
import type { AddressInfo } from 'node:net';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { adminAccountBanner, ensureAdminAccount } from './admin-account';
import { bootstrap } from './bootstrap';
import { commands } from './cli/commands';
import { startHttpProcesses } from './cluster/http-processes';
import { isMessage, toPrimary } from './cluster/messages';
import { serveOnSharedPort } from './cluster/shared-port';
import { startControlServer } from './control/control-server';
import type { Database } from './db/database';
import { loadConfigOrExit, type Config } from './env';
import { stopListening } from './http/http-server';
import { serveApp } from './http/serve';
import { startAppWorker } from './jobs/app-worker';
import { WEB_DIST } from './paths';
import { stopOnSignals, stoppableServer, type Lifecycle, type Stoppable } from './shutdown';
import { TEST_PAYMENTS_NOTICE } from '../shared/test-payments';

/** HTTP processes: WEB_CONCURRENCY, or one per core, on PostgreSQL; one on the embedded database, which one process owns. */
function httpProcessCount(config: Config, kind: Database['kind']): number {
  return kind === 'pglite' ? 1 : config.webConcurrency || availableParallelism();
}

/**
 * npm start: migrate, seed, serve, run the worker (unless RUN_WORKER=false); stops gracefully on
 * SIGTERM/SIGINT (shutdown.ts). On PostgreSQL with more than one HTTP process this is the cluster's
 * primary: it migrates, runs the one job worker, and runs the HTTP processes (decision 023).
 */
async function main(): Promise<void> {
  const config = loadConfigOrExit();
  const deps = await bootstrap(config);
  const { logger, db } = deps;
  // The worker first: a provisioner that cannot run stops the start before the admin's one-time password is printed.
  const worker = config.runWorker ? await startAppWorker(deps) : undefined;
  const account = await ensureAdminAccount(db, config.adminEmail);
  if (account) process.stdout.write(`${adminAccountBanner(account)}\n`);
  const lifecycle: Lifecycle = { stopping: false };
  // The embedded database admits this process alone: the CLI's commands run in it.
  const control = db.kind === 'pglite' ? await startControlServer(deps, commands) : undefined;
  const count = httpProcessCount(config, db.kind);
  if (db.kind === 'pglite' && config.webConcurrency > 1) logger.warn('WEB_CONCURRENCY is ignored on the embedded database: one process serves');

  // Signals are handled from here on, before any HTTP process listens; the list is read when a shutdown begins.
  const stop: Stoppable[] = [];
  if (control) stop.push({ name: 'control socket', stop: () => control.close() });
  if (worker) stop.push({ name: 'worker', stop: (giveUp) => worker.stop(giveUp) });
  stopOnSignals({ logger, lifecycle, graceMs: config.shutdownGraceSeconds * 1000, stop, close: [{ name: 'database', stop: () => db.close() }] });

  let port: number;
  if (count > 1) {
    const processes = startHttpProcesses({ count, exec: fileURLToPath(import.meta.url), logger });
    stop.push(processes);
    port = await processes.listening;
  } else {
    const server = await serveApp({ ...deps, webDir: WEB_DIST, lifecycle, worker });
    stop.push(stoppableServer(server));
    port = (server.address() as AddressInfo).port;
  }
  logger.info('listening', { url: `http://localhost:${port}`, database: db.kind, httpProcesses: count });

  // Printed whatever LOG_LEVEL says: the operator must see it at every start (decision 028).
  if (config.testPaymentsChosen) process.stdout.write(`${TEST_PAYMENTS_NOTICE}\n`);
  else if (!config.paypal && config.databaseUrl) {
    logger.warn('payments use the built-in TEST provider: buyers approve their own payments; set PAYPAL_* before taking real customers');
  }
}

/**
 * One of the primary's HTTP processes: the database is migrated and the worker runs in the
 * primary. It stops when the primary asks (a Ctrl-C in a terminal reaches the whole group, so
 * SIGINT is left to the primary) or on its own SIGTERM, after which the primary starts another.
 */
async function serveInCluster(): Promise<void> {
  const config = loadConfigOrExit();
  const deps = await bootstrap(config, { prepared: true });
  const lifecycle: Lifecycle = { stopping: false };
  const server = await serveOnSharedPort({ ...deps, webDir: WEB_DIST, lifecycle, cluster: true });
  const stop = stopOnSignals(
    {
      logger: deps.logger,
      lifecycle,
      graceMs: config.shutdownGraceSeconds * 1000,
      stop: [stoppableServer(server)],
      close: [{ name: 'database', stop: () => deps.db.close() }],
    },
    ['SIGTERM'],
  );
  process.on('SIGINT', () => {});
  process.on('message', (message) => {
    if (isMessage(message, 'nodeharbor:stop-listening')) {
      // The descriptor closes at once; the last process's closes the port.
      void stopListening(server);
      toPrimary({ type: 'nodeharbor:not-listening' });
    }
    if (isMessage(message, 'nodeharbor:stop')) stop('asked by the primary');
  });
}

(cluster.isPrimary ? main() : serveInCluster()).catch((e: unknown) => {
  process.stderr.write(`NodeHarbor failed to start: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});
