import type { Task } from './task';
import { installService } from './tasks/install-service';
import { pruneJobs } from './tasks/prune-jobs';
import { reconcilePurchases } from './tasks/reconcile-purchases';
import { renewService } from './tasks/renew-service';
import { renewalSweep } from './tasks/renewal-sweep';
import { sendEmail } from './tasks/send-email';
import { startService } from './tasks/start-service';
import { stopService } from './tasks/stop-service';
import { uninstallService } from './tasks/uninstall-service';

/** Every task a worker runs, by name (the name stored in nodeharbor.jobs.task). */
export const taskRegistry: ReadonlyMap<string, Task> = new Map(
  [sendEmail, installService, uninstallService, stopService, startService, renewalSweep, renewService, pruneJobs, reconcilePurchases].map(
    (t) => [t.name, t as Task],
  ),
);

/** Recurring tasks: each is enqueued once per period, keyed by the period's start, however many workers run. */
export const schedules: readonly { task: string; everySeconds: number }[] = [
  { task: renewalSweep.name, everySeconds: 60 },
  { task: pruneJobs.name, everySeconds: 3600 },
  // Pending purchases older than 30 s are asked about every 30 s: credited well within 120 s.
  { task: reconcilePurchases.name, everySeconds: 30 },
];
