import type { Database } from '../db/database';
import type { AppDeps } from '../deps';
import { ConfigError, type Config } from '../env';
import { checkSwarmManager, connectDocker, DEFAULT_DOCKER_HOST, DOCKER_DIR } from '../provisioning/drivers/docker-engine';
import { createDockerDriver } from '../provisioning/drivers/docker';
import { createSimulatedDriver } from '../provisioning/drivers/simulated';
import type { Provisioner } from '../provisioning/provisioner';
import { schedules } from './registry';
import type { JobDeps } from './task';
import { startWorker, type Worker } from './worker';

/**
 * The provisioner PROVISIONER names. Docker's is checked before any job runs: an engine that does
 * not answer or is not a Swarm manager stops the start with one line saying what to do.
 */
async function createProvisioner(config: Config, db: Database): Promise<Provisioner> {
  if (config.provisioner === 'simulated') {
    return createSimulatedDriver(db, { installSeconds: config.provisionInstallSeconds, deleteSeconds: config.provisionDeleteSeconds });
  }
  const docker = connectDocker(config.docker);
  await checkSwarmManager(docker, config.docker.host ?? DEFAULT_DOCKER_HOST);
  return createDockerDriver(docker, { registryConfigDir: config.docker.configDir ?? DOCKER_DIR });
}

/** NODE_IMAGES may only name products that exist: a typo would otherwise run the product's default image. */
async function checkNodeImages(db: Database, images: Readonly<Record<string, string>>): Promise<void> {
  const { rows } = await db.query<{ code: string }>(
    'select distinct base_product_code as code from public.products where base_product_code is not null order by 1',
  );
  const known = rows.map((r) => r.code);
  const unknown = Object.keys(images).filter((code) => !known.includes(code));
  if (unknown.length) {
    throw new ConfigError([`NODE_IMAGES names ${unknown.join(', ')}, which no product has as its base_product_code (known: ${known.join(', ')})`]);
  }
}

/** What the worker's tasks use, from the app's dependencies and the provisioner PROVISIONER names. */
export async function createJobDeps(deps: AppDeps): Promise<JobDeps> {
  const { config, db, logger, mailer, payments } = deps;
  await checkNodeImages(db, config.nodes.images);
  const provisioner = await createProvisioner(config, db);
  return { db, logger, mailer, payments, provisioner, nodes: config.nodes };
}

/** The worker as npm start and npm run worker run it, configured from the environment. */
export async function startAppWorker(deps: AppDeps): Promise<Worker> {
  const { config, logger } = deps;
  const worker = startWorker(await createJobDeps(deps), {
    concurrency: config.workerConcurrency,
    pollMs: config.workerPollMs,
    leaseSeconds: config.jobLeaseSeconds,
    schedules: schedules(config.reconcileIntervalSeconds),
  });
  logger.info('worker started', { worker: worker.id, concurrency: config.workerConcurrency, provisioner: config.provisioner });
  return worker;
}
