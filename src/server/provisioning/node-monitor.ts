import type { RewardRule } from '../../shared/node-health';
import { isUuid } from '../../shared/validation';
import type { Database, Queryable } from '../db/database';
import type { Logger } from '../http/logger';
import { hitRateLimit } from '../http/rate-limit';
import type { Mailer } from '../mail/mailer';
import { nodeDownMail, nodeUpMail } from '../mail/templates/node-alert';
import { fromMail, notify } from '../notify/notify';
import type { NodeSettings } from './node-settings';
import type { NodeUsage, Provisioner } from './provisioner';

export type MonitorDeps = { db: Database; logger: Logger; mailer: Mailer; provisioner: Provisioner; nodes: NodeSettings; publicUrl: string };

/** One incident to mail, as private.record_node_samples returns it. */
type Alert = { action: 'down' | 'up'; incident_id: number; service_id: string; user_id: string; started_at: Date };

/** `usage`: the nodes whose usage was sampled and recorded. */
export type SweepResult = { nodes: number; alerts: Alert[]; usage: number };

/** A gap between two samples longer than this many intervals (no sweep ran) is not counted as observed. */
const GAP_INTERVALS = 3;
/** Longest reason kept from the engine. */
const REASON_MAX = 500;
/** Engine calls a sweep may spend on what the nodes use (Provisioner.usage); past them, the nodes take turns. */
export const USAGE_CALLS_PER_SWEEP = 100;
/** The longest a sweep waits for them (and no longer than its interval). */
const USAGE_DEADLINE_MS = 15_000;

/** What the running nodes use, within the sweep's budget; an engine that does not answer is logged, and no usage is recorded this time. */
async function sampleUsage(deps: MonitorDeps): Promise<NodeUsage[]> {
  const deadline = AbortSignal.timeout(Math.min(USAGE_DEADLINE_MS, deps.nodes.monitorIntervalSeconds * 1000));
  try {
    return await deps.provisioner.usage({ calls: USAGE_CALLS_PER_SWEEP, deadline });
  } catch (e) {
    deps.logger.warn('node usage not sampled: the engine did not answer', { error: e instanceof Error ? e.message : String(e) });
    return [];
  }
}

/**
 * One sweep of the node monitor: every node's state from the engine in a few calls, then one
 * statement (private.record_node_samples, migration 0019) that writes what changed (states,
 * restarts, uptime, incidents) for every live service, and the incidents' e-mails and the status
 * page's fleet availability in the same transaction. Its cost in round trips does not grow with the number of nodes; an engine that
 * does not answer is thrown (nothing is recorded, and the gap counts as not observed). Meanwhile
 * it samples what the running nodes use (sampleUsage), recorded afterwards in one statement of its
 * own (private.record_node_usage, migration 0049), which also drops the points past their period.
 */
export async function sweepNodes(deps: MonitorDeps): Promise<SweepResult> {
  const { db, provisioner, nodes } = deps;
  const sampling = sampleUsage(deps);
  const observed = await provisioner.observe();
  // Our label on something that is no service of ours (set by hand) must not fail the sweep.
  const samples = observed
    .filter((o) => isUuid(o.serviceId))
    .map((o) => ({
      service_id: o.serviceId,
      state: o.state,
      task_id: o.taskId,
      host: o.host,
      exit_code: o.exitCode,
      reason: o.reason?.slice(0, REASON_MAX) ?? null,
    }));
  const alerts = await db.transaction(async (tx) => {
    const { rows } = await tx.query<Alert>(
      'select action, incident_id, service_id, user_id, started_at from private.record_node_samples($1::jsonb, $2, $3)',
      [JSON.stringify(samples), nodes.monitorIntervalSeconds * GAP_INTERVALS, nodes.downAlertMinutes * 60],
      'record-node-samples',
    );
    for (const alert of rows) await mailAlert(deps, tx, alert);
    // The status page's figures follow the same rows, in the same transaction (migration 0054).
    await tx.query('select private.refresh_fleet_availability()', [], 'refresh-fleet-availability');
    return rows;
  });
  const usage = (await sampling)
    .filter((u) => isUuid(u.serviceId) && Number.isFinite(u.cpuPercent) && Number.isFinite(u.memoryBytes))
    .map((u) => ({
      service_id: u.serviceId,
      run: u.run,
      cpu_percent: u.cpuPercent,
      memory_bytes: u.memoryBytes,
      memory_limit_bytes: u.memoryLimitBytes,
      rx_bytes: u.rxBytes,
      tx_bytes: u.txBytes,
    }));
  await db.query('select private.record_node_usage($1::jsonb)', [JSON.stringify(usage)], 'record-node-usage');
  return { nodes: samples.length, alerts, usage: usage.length };
}

/**
 * The incident's notice (notify.ts): its e-mail through the outbox and the owner's channels, each
 * keyed by the incident, so a retried sweep notifies once.
 * Node-down mails count against the owner's hourly cap (NODE_ALERTS_PER_HOUR): past it the
 * incident stays recorded without one, and then gets no "back online" mail either. A product's
 * own alert delay (products.down_alert_minutes) stands in for NODE_DOWN_ALERT_MINUTES in the sweep.
 */
async function mailAlert(deps: MonitorDeps, tx: Queryable, alert: Alert): Promise<void> {
  const { rows } = await tx.query<{ name: string; email: string | null; rule: RewardRule | null; note: string | null }>(
    `select s.name, u.email, p.reward_rule as rule, p.down_alert_note as note
       from private.services s join auth.users u on u.id = s.user_id
       left join public.products p on p.id = s.product_id
      where s.id = $1`,
    [alert.service_id],
  );
  const svc = rows[0];
  if (!svc?.email) return;
  const url = `${deps.publicUrl}/dashboard/services/${alert.service_id}`;
  const data = { serviceId: alert.service_id, serviceName: svc.name, downSince: alert.started_at.toISOString() };
  if (alert.action === 'up') {
    const mail = nodeUpMail({ to: svc.email, name: svc.name, since: alert.started_at, back: new Date(), rule: svc.rule, url });
    await notify(tx, deps, {
      userId: alert.user_id,
      serviceId: alert.service_id,
      event: 'node_up',
      key: `node-up:${alert.incident_id}`,
      mail,
      message: fromMail(mail, data, url),
    });
    return;
  }
  const wait = await hitRateLimit(tx, `node-alert:user:${alert.user_id}`, { max: deps.nodes.alertsPerHour, windowSeconds: 3600 });
  if (wait > 0) {
    deps.logger.warn('node-down mail not sent: the owner reached the hourly cap', { service: alert.service_id, incident: alert.incident_id });
    return;
  }
  const mail = nodeDownMail({ to: svc.email, name: svc.name, since: alert.started_at, note: svc.note, url });
  await notify(tx, deps, {
    userId: alert.user_id,
    serviceId: alert.service_id,
    event: 'node_down',
    key: `node-down:${alert.incident_id}`,
    mail,
    message: fromMail(mail, data, url),
  });
  await tx.query('update private.node_incidents set mailed = true where id = $1', [alert.incident_id]);
}
