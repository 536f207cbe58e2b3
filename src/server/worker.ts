import { bootstrap } from './bootstrap';
import { commands } from './cli/commands';
import { startControlServer } from './control/control-server';
import { loadConfigOrExit } from './env';
import { startAppWorker } from './jobs/app-worker';
import { stopOnSignals } from './shutdown';

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
  stopOnSignals({
    logger: deps.logger,
    lifecycle: { stopping: false },
    graceMs: config.shutdownGraceSeconds * 1000,
    stop: [
      ...(control ? [{ name: 'control socket', stop: () => control.close() }] : []),
      { name: 'worker', stop: (giveUp: AbortSignal) => worker.stop(giveUp) },
    ],
    close: [{ name: 'database', stop: () => deps.db.close() }],
  });
}

main().catch((e: unknown) => {
  process.stderr.write(`NodeHarbor worker failed to start: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
});
