import type { AppDeps } from '../deps';
import { createSimulatedDriver } from '../provisioning/drivers/simulated';
import { startWorker, type Worker } from './worker';

/** The worker as npm start and npm run worker run it, configured from the environment. */
export function startAppWorker(deps: AppDeps): Worker {
  const { config, db, logger, mailer, payments } = deps;
  const provisioner = createSimulatedDriver(db, {
    installSeconds: config.provisionInstallSeconds,
    deleteSeconds: config.provisionDeleteSeconds,
  });
  const worker = startWorker(
    { db, logger, mailer, provisioner, payments },
    { concurrency: config.workerConcurrency, pollMs: config.workerPollMs, leaseSeconds: config.jobLeaseSeconds },
  );
  logger.info('worker started', { worker: worker.id, concurrency: config.workerConcurrency });
  return worker;
}
