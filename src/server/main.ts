import { getRequestListener } from '@hono/node-server';
import type { AddressInfo } from 'node:net';
import { adminAccountBanner, ensureAdminAccount } from './admin-account';
import { createApp } from './app';
import { bootstrap } from './bootstrap';
import { commands } from './cli/commands';
import { startControlServer } from './control/control-server';
import { loadConfigOrExit } from './env';
import { createHttpServer } from './http/http-server';
import { startAppWorker } from './jobs/app-worker';
import { WEB_DIST } from './paths';
import { stopOnSignals, stoppableServer, type Lifecycle, type Stoppable } from './shutdown';

/** npm start: migrate, seed, serve, run the worker (unless RUN_WORKER=false); stops gracefully on SIGTERM/SIGINT (shutdown.ts). */
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
  const app = createApp({ ...deps, webDir: WEB_DIST, lifecycle });
  const server = createHttpServer(config);
  server.on('request', getRequestListener(app.fetch, { hostname: config.host }));
  server.listen(config.port, config.host, () => {
    logger.info('listening', { url: `http://localhost:${(server.address() as AddressInfo).port}`, database: db.kind });
  });

  if (!config.paypal && config.databaseUrl) {
    logger.warn('payments use the built-in TEST provider: buyers approve their own payments; set PAYPAL_* before taking real customers');
  }

  const stop: Stoppable[] = [stoppableServer(server)];
  if (control) stop.push({ name: 'control socket', stop: () => control.close() });
  if (worker) stop.push({ name: 'worker', stop: (giveUp) => worker.stop(giveUp) });
  stopOnSignals({ logger, lifecycle, graceMs: config.shutdownGraceSeconds * 1000, stop, close: [{ name: 'database', stop: () => db.close() }] });
}

main().catch((e: unknown) => {
  process.stderr.write(`NodeHarbor failed to start: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});
