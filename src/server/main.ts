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

/** npm start: migrate, seed, serve, run the worker (unless RUN_WORKER=false); stops cleanly on SIGTERM/SIGINT. */
async function main(): Promise<void> {
  const config = loadConfigOrExit();
  const deps = await bootstrap(config);
  const { logger, db } = deps;
  // The worker first: a provisioner that cannot run stops the start before the admin's one-time password is printed.
  const worker = config.runWorker ? await startAppWorker(deps) : undefined;
  const account = await ensureAdminAccount(db, config.adminEmail);
  if (account) process.stdout.write(`${adminAccountBanner(account)}\n`);
  // The embedded database admits this process alone: the CLI's commands run in it.
  const control = db.kind === 'pglite' ? await startControlServer(deps, commands) : undefined;
  const app = createApp({ ...deps, webDir: WEB_DIST });
  const server = createHttpServer(config);
  server.on('request', getRequestListener(app.fetch, { hostname: config.host }));
  server.listen(config.port, config.host, () => {
    logger.info('listening', { url: `http://localhost:${(server.address() as AddressInfo).port}`, database: db.kind });
  });

  if (!config.paypal && config.databaseUrl) {
    logger.warn('payments use the built-in TEST provider: buyers approve their own payments; set PAYPAL_* before taking real customers');
  }

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info('shutting down', { signal });
    // Finish in-flight requests and running jobs, then close the database so PGlite is left clean.
    const force = setTimeout(() => process.exit(1), 15_000);
    force.unref();
    server.close(async () => {
      await control?.close();
      await worker?.stop();
      await db.close();
      logger.info('stopped');
      process.exit(0);
    });
    server.closeIdleConnections();
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

main().catch((e: unknown) => {
  process.stderr.write(`NodeHarbor failed to start: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});
