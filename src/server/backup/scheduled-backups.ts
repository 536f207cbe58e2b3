import { mkdir, readdir, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { BackupSource } from './snapshot';
import { takeBackup, type BackupResult } from './take-backup';

/** BACKUP_DIR and BACKUP_KEEP, with what to back up. */
export type ScheduledBackups = { dir: string; keep: number; source: BackupSource };

/** Names sort as their times do; nothing else in BACKUP_DIR is ever removed. */
const SCHEDULED = /^nodeharbor-\d{8}-\d{6}-\d{3}\.jsonl\.gz$/;

/** nodeharbor-YYYYMMDD-HHMMSS-mmm.jsonl.gz, in UTC. */
export function scheduledBackupName(at: Date): string {
  const [date, time] = at.toISOString().replace(/[-:]/g, '').split('T') as [string, string];
  return `nodeharbor-${date}-${time.slice(0, 6)}-${time.slice(7, 10)}.jsonl.gz`;
}

/**
 * Writes a backup into BACKUP_DIR (created 0700 when missing), then removes all but the newest
 * BACKUP_KEEP of the scheduled ones. A failure leaves the older backups as they were.
 */
export async function takeScheduledBackup(settings: ScheduledBackups, now = new Date()): Promise<BackupResult & { removed: string[] }> {
  const dir = resolve(settings.dir);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const result = await takeBackup(settings.source, join(dir, scheduledBackupName(now)));
  const ours = (await readdir(dir)).filter((name) => SCHEDULED.test(name)).sort();
  const removed = ours.slice(0, Math.max(0, ours.length - settings.keep));
  for (const name of removed) await rm(join(dir, name), { force: true });
  return { ...result, removed };
}
