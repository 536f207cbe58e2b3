import type { Task } from './task';
import { backupDatabase } from './tasks/backup-database';
import { installService } from './tasks/install-service';
import { deliverNotification } from './tasks/deliver-notification';
import { monitorNodes } from './tasks/monitor-nodes';
import { notifyLowBalance } from './tasks/notify-low-balance';
import { pollTelegram, TELEGRAM_POLL_SECONDS } from './tasks/poll-telegram';
import { powerNode } from './tasks/power-node';
import { probeApi } from './tasks/probe-api';
import { pruneAuth } from './tasks/prune-auth';
import { pruneJobs } from './tasks/prune-jobs';
import { pruneNodeHistory } from './tasks/prune-node-history';
import { reconcileNodesTask } from './tasks/reconcile-nodes';
import { reconcilePurchases } from './tasks/reconcile-purchases';
import { renewService } from './tasks/renew-service';
import { renewalSweep } from './tasks/renewal-sweep';
import { resumeServices } from './tasks/resume-services';
import { sendEmail } from './tasks/send-email';
import { sendRecovery } from './tasks/send-recovery';
import { startService } from './tasks/start-service';
import { statementNotices } from './tasks/statement-notices';
import { stopService } from './tasks/stop-service';
import { uninstallService } from './tasks/uninstall-service';
import { updateNodeKey } from './tasks/update-node-key';

/** Every task a worker runs, by name (the name stored in nodeharbor.jobs.task). */
export const taskRegistry: ReadonlyMap<string, Task> = new Map(
  [
    sendEmail,
    sendRecovery,
    installService,
    uninstallService,
    stopService,
    startService,
    updateNodeKey,
    powerNode,
    renewalSweep,
    renewService,
    resumeServices,
    pruneJobs,
    pruneAuth,
    reconcilePurchases,
    reconcileNodesTask,
    monitorNodes,
    pruneNodeHistory,
    backupDatabase,
    deliverNotification,
    notifyLowBalance,
    pollTelegram,
    probeApi,
    statementNotices,
  ].map((t) => [t.name, t as Task]),
);

export type Schedule = { task: string; everySeconds: number };

/**
 * Recurring tasks: each is enqueued once per period, keyed by the period's start, however many
 * workers run. The nodes' reconciler runs every RECONCILE_INTERVAL_SECONDS, their monitor every
 * NODE_MONITOR_INTERVAL_SECONDS, the backup every BACKUP_EVERY_HOURS when BACKUP_DIR is set, and
 * the Telegram bot's poll for link codes every few seconds when `telegram` (TELEGRAM_BOT_TOKEN is set).
 */
export function schedules(reconcileIntervalSeconds: number, monitorIntervalSeconds: number, backupEveryHours?: number, telegram = false): Schedule[] {
  return [
    ...fixedSchedules,
    { task: reconcileNodesTask.name, everySeconds: reconcileIntervalSeconds },
    { task: monitorNodes.name, everySeconds: monitorIntervalSeconds },
    ...(backupEveryHours === undefined ? [] : [{ task: backupDatabase.name, everySeconds: backupEveryHours * 3600 }]),
    ...(telegram ? [{ task: pollTelegram.name, everySeconds: TELEGRAM_POLL_SECONDS }] : []),
  ];
}

const fixedSchedules: readonly Schedule[] = [
  { task: renewalSweep.name, everySeconds: 60 },
  { task: pruneJobs.name, everySeconds: 3600 },
  { task: pruneAuth.name, everySeconds: 3600 },
  { task: pruneNodeHistory.name, everySeconds: 3600 },
  // Pending purchases older than 30 s are asked about every 30 s: credited well within 120 s.
  { task: reconcilePurchases.name, everySeconds: 30 },
  // The status page's API row: one probe a minute.
  { task: probeApi.name, everySeconds: 60 },
  // Last month's statements are ready: told on the 1st, within the hour.
  { task: statementNotices.name, everySeconds: 3600 },
];
