import { serve } from '@hono/node-server';
import { adminAccountBanner, ensureAdminAccount } from './admin-account';
import { createApp } from './app';
import { bootstrap } from './bootstrap';
import type { AppDeps } from './deps';
import { ConfigError, loadConfig } from './env';
import { reconcilePendingPurchases } from './payments/reconcile';
import { WEB_DIST } from './paths';

/** npm start: migrate, seed, serve; stops cleanly on SIGTERM/SIGINT. */
async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (e) {
    if (e instanceof ConfigError) {
      process.stderr.write(`${e.message}\n`);
      process.exit(1);
    }
    throw e;
  }
  const deps = await bootstrap(config);
  const { logger, db } = deps;
  const account = await ensureAdminAccount(db, config.adminEmail);
  if (account) process.stdout.write(`${adminAccountBanner(account)}\n`);
  const app = createApp({ ...deps, webDir: WEB_DIST });
  const server = serve({ fetch: app.fetch, port: config.port, hostname: config.host }, (info) => {
    logger.info('listening', { url: `http://localhost:${info.port}`, database: db.kind });
  });

  if (!config.paypal && config.databaseUrl) {
    logger.warn('payments use the built-in TEST provider: buyers approve their own payments; set PAYPAL_* before taking real customers');
  }
  // NOTE: moves onto the durable job queue at merge; until then each server process reconciles on
  // its own timer, which is safe because crediting is idempotent.
  const reconcileTimer = config.runWorker ? startReconciliation(deps) : undefined;

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info('shutting down', { signal });
    clearInterval(reconcileTimer);
    // Finish in-flight requests, then close the database so PGlite is left clean.
    const force = setTimeout(() => process.exit(1), 15_000);
    force.unref();
    server.close(async () => {
      await db.close();
      logger.info('stopped');
      process.exit(0);
    });
    (server as unknown as { closeIdleConnections?: () => void }).closeIdleConnections?.();
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

/** Every 30 s, so an approved payment reaches the balance within spec §9's 120 s without the browser. */
function startReconciliation(deps: AppDeps): NodeJS.Timeout {
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    reconcilePendingPurchases(deps)
      .catch((e: unknown) => deps.logger.error('reconciliation failed', { error: e instanceof Error ? e.message : String(e) }))
      .finally(() => (running = false));
  }, 30_000);
  timer.unref();
  return timer;
}

main().catch((e: unknown) => {
  process.stderr.write(`NodeHarbor failed to start: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});
