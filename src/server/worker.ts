import { bootstrap } from './bootstrap';
import { commands } from './cli/commands';
import { startControlServer } from './control/control-server';
import { loadConfigOrExit } from './env';
import { startAppWorker } from './jobs/app-worker';

/**
 * npm run worker: the job worker alone, no HTTP. Run several against one PostgreSQL to share the
 * work; with the embedded database the data folder admits one process, so npm start runs it instead.
 */
async function main(): Promise<void> {
  const config = loadConfigOrExit();
  const deps = await bootstrap(config);
  const worker = await startAppWorker(deps);
  // On the embedded database this process holds the data folder: the CLI's commands run in it.
  const control = deps.db.kind === 'pglite' ? await startControlServer(deps, commands) : undefined;
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    deps.logger.info('shutting down', { signal });
    // Let running jobs finish; a job cut short would wait for its lease to run out elsewhere.
    const force = setTimeout(() => process.exit(1), 30_000);
    force.unref();
    void Promise.resolve(control?.close())
      .then(() => worker.stop())
      .then(() => deps.db.close())
      .then(() => {
        deps.logger.info('stopped');
        process.exit(0);
      });
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

main().catch((e: unknown) => {
  process.stderr.write(`NodeHarbor worker failed to start: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});
