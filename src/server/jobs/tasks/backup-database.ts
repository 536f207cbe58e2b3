import { z } from 'zod';
import { takeScheduledBackup } from '../../backup/scheduled-backups';
import { defineTask } from '../task';

/**
 * The scheduled backup (BACKUP_DIR, every BACKUP_EVERY_HOURS): one job per period, whichever
 * worker claims it, so several servers write one backup. A failure is retried like any job's.
 */
export const backupDatabase = defineTask({
  name: 'backup-database',
  lane: 'upkeep',
  payload: z.object({}),
  async run(_payload, { backups, logger }) {
    if (!backups) throw new Error('BACKUP_DIR is not set in the worker that took this job: give every process the same BACKUP_* settings');
    const { file, summary, removed } = await takeScheduledBackup(backups);
    logger.info('backup written', { file, rows: summary.rows, removed });
  },
});
