import { backupSource } from '../backup/snapshot';
import type { Database } from '../db/database';
import type { AppDeps } from '../deps';
import { ConfigError } from '../env';
import { channelsFor } from '../notify/channels';
import { provisionerFor } from '../provisioning/create-provisioner';
import { schedules } from './registry';
import type { JobDeps } from './task';
import { startWorker, type Worker } from './worker';

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
  const { config, db, logger, mailer, payments, crypto, seller } = deps;
  await checkNodeImages(db, config.nodes.images);
  const provisioner = await provisionerFor(deps);
  const backups = config.backups && { dir: config.backups.dir, keep: config.backups.keep, source: backupSource(deps) };
  return {
    db,
    logger,
    mailer,
    payments,
    ...(crypto ? { crypto } : {}),
    seller,
    provisioner,
    nodes: config.nodes,
    suspensionDays: config.suspensionDays,
    publicUrl: config.publicUrl,
    backups,
    channels: channelsFor(config),
  };
}

/** The worker as npm start and npm run worker run it, configured from the environment. */
export async function startAppWorker(deps: AppDeps): Promise<Worker> {
  const { config, logger } = deps;
  const worker = startWorker(await createJobDeps(deps), {
    concurrency: config.workerConcurrency,
    pollMs: config.workerPollMs,
    leaseSeconds: config.jobLeaseSeconds,
    schedules: schedules(
      config.reconcileIntervalSeconds,
      config.nodes.monitorIntervalSeconds,
      config.backups?.everyHours,
      config.outbound.telegramBotToken !== undefined,
    ),
  });
  logger.info('worker started', { worker: worker.id, concurrency: config.workerConcurrency, provisioner: config.provisioner });
  return worker;
}
