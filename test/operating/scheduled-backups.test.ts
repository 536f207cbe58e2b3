import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readBackup } from '../../src/server/backup/read-backup';
import { scheduledBackupName } from '../../src/server/backup/scheduled-backups';
import { loadConfig, type ConfigError } from '../../src/server/env';
import { createLogger } from '../../src/server/http/logger';
import { createJobDeps } from '../../src/server/jobs/app-worker';
import { enqueue } from '../../src/server/jobs/queue';
import { schedules, taskRegistry } from '../../src/server/jobs/registry';
import { startWorker } from '../../src/server/jobs/worker';
import { startTestServer, type TestServer } from '../helpers/server';
import { createTestUser } from '../helpers/users';
import { until } from '../helpers/wait';

describe('BACKUP_* settings', () => {
  it('are off without BACKUP_DIR, and default to every 24 hours keeping 7', () => {
    expect(loadConfig({}).backups).toBeUndefined();
    expect(loadConfig({ BACKUP_EVERY_HOURS: '2' }).backups).toBeUndefined();
    expect(loadConfig({ BACKUP_DIR: '/var/backups/nodeharbor' }).backups).toEqual({ dir: '/var/backups/nodeharbor', everyHours: 24, keep: 7 });
    expect(loadConfig({ BACKUP_DIR: 'b', BACKUP_EVERY_HOURS: '6', BACKUP_KEEP: '30' }).backups).toEqual({ dir: 'b', everyHours: 6, keep: 30 });
  });

  it('refuse values out of range, each on its line', () => {
    try {
      loadConfig({ BACKUP_DIR: 'b', BACKUP_EVERY_HOURS: '0', BACKUP_KEEP: 'all' });
      expect.unreachable();
    } catch (e) {
      expect((e as ConfigError).problems).toEqual([
        'BACKUP_EVERY_HOURS must be a whole number from 1 to 8760, got "0"',
        'BACKUP_KEEP must be a whole number from 1 to 10000, got "all"',
      ]);
    }
  });

  it('schedule the backup, an upkeep task, every BACKUP_EVERY_HOURS only when BACKUP_DIR is set', () => {
    expect(taskRegistry.get('backup-database')!.lane).toBe('upkeep');
    expect(schedules(60, 30).map((s) => s.task)).not.toContain('backup-database');
    expect(schedules(60, 30, 6)).toContainEqual({ task: 'backup-database', everySeconds: 6 * 3600 });
  });

  it('name each backup by its time, so that names sort as times do', () => {
    expect(scheduledBackupName(new Date('2025-03-04T05:06:07.089Z'))).toBe('nodeharbor-20250304-050607-089.jsonl.gz');
  });
});

describe('the scheduled backup', () => {
  let s: TestServer;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'nh-scheduled-'));
    s = await startTestServer({ BACKUP_DIR: join(dir, 'backups'), BACKUP_KEEP: '2', RATE_LIMITS_ENABLED: 'false' });
    await createTestUser(s, { credits: 5 });
  });
  afterAll(async () => {
    await s.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Runs due jobs with the real worker, as npm start's, until the given job is no longer pending or running. */
  async function runJob(deps: Awaited<ReturnType<typeof createJobDeps>>, id: number) {
    const worker = startWorker(deps, { concurrency: { nodes: 1, upkeep: 1 }, pollMs: 20, leaseSeconds: 30, schedules: [] });
    try {
      return await until(
        `job ${id} to have run`,
        async () => {
          const { rows } = await s.deps.db.query<{ status: string; attempts: number; last_error: string | null }>(
            'select status, attempts, last_error from nodeharbor.jobs where id = $1',
            [id],
          );
          return rows[0] && rows[0].attempts > 0 && !['running'].includes(rows[0].status) && rows[0];
        },
        undefined,
        20,
      );
    } finally {
      await worker.stop();
    }
  }

  it('is enqueued by the scheduler once per period and written by the upkeep lane into BACKUP_DIR, which it creates private', async () => {
    const deps = await createJobDeps(s.deps);
    const worker = startWorker(deps, {
      concurrency: { nodes: 1, upkeep: 1 },
      pollMs: 20,
      leaseSeconds: 30,
      schedules: schedules(3600, 120, 24).filter((x) => x.task === 'backup-database'),
    });
    try {
      await until(
        'the scheduled backup to be done',
        async () => (await s.deps.db.query<{ status: string }>(`select status from nodeharbor.jobs where task = 'backup-database'`)).rows[0]?.status === 'done',
        undefined,
        20,
      );
    } finally {
      await worker.stop();
    }
    const files = readdirSync(join(dir, 'backups'));
    expect(files).toHaveLength(1);
    expect(statSync(join(dir, 'backups')).mode & 0o777).toBe(0o700);
    expect(statSync(join(dir, 'backups', files[0]!)).mode & 0o777).toBe(0o600);
    const manifest = await readBackup(join(dir, 'backups', files[0]!));
    expect(manifest.tables.find((t) => t.name === 'auth.users')!.rows).toBe(1);
  });

  it('keeps the newest BACKUP_KEEP of its own backups, and nothing else in the folder is touched', async () => {
    writeFileSync(join(dir, 'backups', 'nodeharbor-by-hand.jsonl.gz'), 'mine');
    writeFileSync(join(dir, 'backups', 'nodeharbor-20000101-000000-000.jsonl.gz.note'), 'mine too');
    const deps = await createJobDeps(s.deps);
    const ours = () => readdirSync(join(dir, 'backups')).filter((f) => /^nodeharbor-\d{8}-\d{6}-\d{3}\.jsonl\.gz$/.test(f));
    const written = [...ours()];
    for (let i = 0; i < 3; i++) {
      const id = (await enqueue(s.deps.db, 'backup-database', {}))!;
      expect(await runJob(deps, id)).toMatchObject({ status: 'done' });
      written.push(...ours().filter((f) => !written.includes(f)));
    }
    expect(written).toHaveLength(4);
    expect(ours().sort()).toEqual(written.slice(-2));
    for (const f of ours()) await readBackup(join(dir, 'backups', f));
    expect(readdirSync(join(dir, 'backups'))).toEqual(expect.arrayContaining(['nodeharbor-by-hand.jsonl.gz', 'nodeharbor-20000101-000000-000.jsonl.gz.note']));
  });

  it('that fails is logged and retried, and the worker goes on', async () => {
    const blocked = join(dir, 'not-a-folder');
    writeFileSync(blocked, 'a file where the folder should be');
    const lines: string[] = [];
    const deps = await createJobDeps({
      ...s.deps,
      logger: createLogger('warn', (l) => lines.push(l)),
      config: { ...s.deps.config, backups: { dir: blocked, everyHours: 24, keep: 2 } },
    });
    const id = (await enqueue(s.deps.db, 'backup-database', {}))!;
    const job = await runJob(deps, id);
    expect(job).toMatchObject({ status: 'pending', attempts: 1 });
    expect(job.last_error).toMatch(/ENOTDIR|EEXIST/);
    expect(lines.map((l) => JSON.parse(l) as { msg: string; task: string })).toContainEqual(
      expect.objectContaining({ msg: 'job failed', task: 'backup-database' }),
    );
    await s.deps.db.query('delete from nodeharbor.jobs where id = $1', [id]);
  });

  it('taken by a worker without BACKUP_DIR fails with a reason, for another worker to take', async () => {
    const deps = await createJobDeps({ ...s.deps, config: { ...s.deps.config, backups: undefined } });
    const id = (await enqueue(s.deps.db, 'backup-database', {}))!;
    const job = await runJob(deps, id);
    expect(job).toMatchObject({
      status: 'pending',
      last_error: 'BACKUP_DIR is not set in the worker that took this job: give every process the same BACKUP_* settings',
    });
    await s.deps.db.query('delete from nodeharbor.jobs where id = $1', [id]);
  });
});
