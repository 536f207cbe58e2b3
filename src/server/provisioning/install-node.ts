import type { InstallFailureCause } from '../../shared/install-failure';
import type { Database } from '../db/database';
import type { Logger } from '../http/logger';
import { enqueue } from '../jobs/queue';
import { findService } from '../jobs/service-row';
import type { Mailer } from '../mail/mailer';
import { installFailedMail } from '../mail/templates/install-failed';
import { serviceActiveMail } from '../mail/templates/service-active';
import { fromMail, notify } from '../notify/notify';
import type { NodeSettings } from './node-settings';
import { NodeCannotRun, nodeSpecOf } from './node-spec';
import type { Provisioner } from './provisioner';
import { redactLogs } from './redact-logs';

export type InstallDeps = { db: Database; logger: Logger; mailer: Mailer; provisioner: Provisioner; nodes: NodeSettings; publicUrl: string };

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Installing → active or failed. Creates the node (the driver finds an existing one by label
 * first), then waits until its task has run for the settle window. A node that keeps failing, or
 * has not run INSTALL_TIMEOUT_SECONDS after this installation's start, fails the installation.
 * The clock starts when the node is handed to the driver, not when the service was ordered: a
 * service waiting in the queue for a free slot waits, and is never failed for waiting. The start
 * is kept in the row (install_started_at, migration 0037), so a worker that takes over a killed
 * one's job does not start the clock again. The caller's job keeps its lease alive meanwhile (the
 * worker's heartbeat). An engine that cannot be reached is thrown, so that the job is retried.
 */
export async function installNode(deps: InstallDeps, serviceId: string): Promise<void> {
  const { db, provisioner, nodes } = deps;
  const svc = await findService(db, serviceId);
  if (svc?.state !== 'installing') return;
  let installedKey: string;
  let deadline: number;
  try {
    const spec = await nodeSpecOf(db, serviceId, nodes.images);
    installedKey = spec.key;
    const startedAt = await startInstallation(db, serviceId);
    if (!startedAt) return;
    deadline = startedAt.getTime() + nodes.installTimeoutSeconds * 1000;
    await provisioner.install(spec);
    // A node the engine kept stopped (install leaves an existing node as it is) must run to settle.
    if ((await provisioner.status(serviceId)) === 'stopped') await provisioner.start(serviceId);
  } catch (e) {
    if (e instanceof NodeCannotRun) return failInstallation(deps, serviceId, e.message);
    throw e;
  }
  const pollMs = Math.max(100, Math.min(1000, nodes.settleSeconds * 250));
  for (;;) {
    const health = await provisioner.health(serviceId);
    if (health.state === 'running' && Date.now() - health.since.getTime() >= nodes.settleSeconds * 1000) {
      return completeInstallation(deps, serviceId, svc.state_changed_at, installedKey);
    }
    if (health.state === 'failing') {
      const reason = health.inTheNodesWords ? health.reason : await inItsOwnWords(provisioner, serviceId, installedKey, health.reason);
      return failInstallation(deps, serviceId, reason, health.cause);
    }
    if (Date.now() >= deadline) {
      const why = health.state === 'starting' && health.reason ? `: ${health.reason}` : '';
      return failInstallation(deps, serviceId, `The node did not start within ${nodes.installTimeoutSeconds} seconds${why}`);
    }
    await sleep(pollMs);
  }
}

/** How many of a failing node's last lines are read for the one that says why it stopped. */
const LAST_WORDS_LINES = 20;

/**
 * Why a node that keeps stopping stopped, in its own last words when it printed any: a vendor's
 * node says why it refused a licence better than an exit code does, and so does our entrypoint
 * when the key is missing (nodes/*). The key is redacted from them, as from the node's logs; the
 * engine's reason stays when the node printed nothing or its logs cannot be read.
 */
async function inItsOwnWords(provisioner: Provisioner, serviceId: string, key: string, engineReason: string): Promise<string> {
  const lines = await provisioner.logs(serviceId, LAST_WORDS_LINES).catch(() => []);
  // Each line starts with the engine's timestamp.
  const last = redactLogs(lines, key)
    .map((line) => line.slice(line.indexOf(' ') + 1).trim())
    .findLast((line) => line !== '');
  return last ? `The node stopped: ${last}` : engineReason;
}

/**
 * This installation's start: now for its first attempt, the one recorded for a later one (a job
 * retried, or taken over from a killed worker). Undefined when the service is no longer installing.
 */
async function startInstallation(db: Database, serviceId: string): Promise<Date | undefined> {
  const { rows } = await db.query<{ install_started_at: Date }>(
    `update private.services set install_started_at = coalesce(install_started_at, now())
      where id = $1 and state = 'installing' returning install_started_at`,
    [serviceId],
  );
  return rows[0]?.install_started_at;
}

/**
 * Records the service active and mails its owner, once per installation: only the call that made
 * the change queues the mail, and its key (the installation's start) keeps a retried job from
 * queueing another. A retried or reused service's next installation is a new one, with its own mail.
 * A key changed after the install read it (an installing node gets no key job) is handed over by
 * one queued here. The owner's balance row is locked first, as manage_service_operation locks it:
 * a change then commits either before this reads the key, or after the service is active, when
 * it queues the job itself.
 */
async function completeInstallation(deps: InstallDeps, serviceId: string, installingSince: Date, installedKey: string): Promise<void> {
  const { db, mailer, publicUrl } = deps;
  await db.transaction(async (tx) => {
    await tx.query('select 1 from public.user_credits where user_id = (select user_id from private.services where id = $1) for update', [serviceId]);
    const { rows } = await tx.query<{ changed: boolean | null }>('select private.complete_service_installation($1) as changed', [serviceId]);
    if (!rows[0]?.changed) return;
    const { rows: keys } = await tx.query<{ key: string }>(
      'select private.decrypt_with_either_key(api_key_encrypted) as key from private.services where id = $1',
      [serviceId],
    );
    if (keys[0]?.key !== installedKey) await enqueue(tx, 'update-node-key', { serviceId });
    const svc = await findService(tx, serviceId);
    if (!svc?.email) return;
    const mail = serviceActiveMail({ to: svc.email, name: svc.name, paidUntil: svc.renews_at, url: `${publicUrl}/dashboard/services/${serviceId}` });
    await mailer.queue(tx, mail, { key: `service-active:${serviceId}:${installingSince.toISOString()}` });
  });
}

/**
 * Removes what the engine has of the node, so that it does not flap, then records the failure
 * with its reason (the admins') and its cause (the owner's words, src/shared/install-failure.ts),
 * gives back what the installation was charged (in the same transaction, once per charge:
 * migration 0050) and mails the owner both, once (the state changes once).
 */
export async function failInstallation(deps: InstallDeps, serviceId: string, reason: string, cause: InstallFailureCause = 'not_started'): Promise<void> {
  const { db, provisioner, logger } = deps;
  await provisioner.uninstall(serviceId);
  await db.transaction(async (tx) => {
    const { rows } = await tx.query<{ changed: boolean | null }>('select private.fail_service_installation($1, $2, $3) as changed', [serviceId, reason, cause]);
    if (!rows[0]?.changed) return;
    const svc = await findService(tx, serviceId);
    const { rows: refunds } = await tx.query<{ amount: string }>(
      'select t.amount::text from private.services s join public.credit_transactions t on t.id = s.install_refund_id where s.id = $1',
      [serviceId],
    );
    const refunded = refunds[0] && svc ? { amount: refunds[0].amount, balance: svc.balance } : null;
    logger.warn('installation failed', { service: serviceId, reason, cause, refunded: refunded?.amount });
    if (!svc?.email) return;
    const mail = installFailedMail({ to: svc.email, name: svc.name, cause, refunded });
    const url = `${deps.publicUrl}/dashboard/services/${serviceId}`;
    await notify(tx, deps, {
      userId: svc.user_id,
      serviceId,
      event: 'install_failed',
      key: `install-failed:${serviceId}:${svc.state_changed_at.toISOString()}`,
      mail,
      message: fromMail(mail, { serviceId, serviceName: svc.name, cause, refunded: refunded?.amount ?? null }, url),
    });
  });
}
