import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { createPostgresDatabase, migratedDataFolder, postgresAnswers, TEST_DB } from '../helpers/database';
import { spawnServer, type ServerProcess } from '../helpers/process';
import { runCli } from './cli-process';

// Issue 36, item 7: a CLI given the wrong folder (or none, from another working directory) made a
// new, empty database there and ran the command on it, while the server went on without it.

const common = { RATE_LIMITS_ENABLED: 'false', ADMIN_EMAIL: 'owner@nodeharbor.test', PROVISION_INSTALL_SECONDS: '0' };
const cleanUps: (() => Promise<unknown>)[] = [];
const folder = (prefix = 'nh-cli-folder-') => {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  cleanUps.push(async () => rmSync(dir, { recursive: true, force: true }));
  return dir;
};
afterAll(async () => {
  for (const clean of cleanUps.reverse()) await clean();
});

const refusal = (dir: string) => `No NodeHarbor database in ${dir}. Set DATA_DIR to the folder your server uses, or pass --create to make a new one.\n`;
const create = ['users:create', '--email', 'lost@nodeharbor.test', '--password', 'correct-horse-battery'];

it.runIf(TEST_DB === 'pglite')(
  'refuses a folder without a database while the server runs on another, makes nothing there, and makes one with --create',
  async () => {
    const serving = await migratedDataFolder(folder());
    const server: ServerProcess = await spawnServer({ ...common, DATA_DIR: serving });
    try {
      // DATA_DIR names another folder: an empty one, or one not made yet.
      const empty = folder();
      expect(await runCli(create, { DATA_DIR: empty })).toEqual({ code: 1, stdout: '', stderr: refusal(empty) });
      expect(readdirSync(empty)).toEqual([]);
      const missing = join(folder(), 'not-made');
      expect(await runCli(['users:list'], { DATA_DIR: missing })).toEqual({ code: 1, stdout: '', stderr: refusal(missing) });
      expect(existsSync(missing)).toBe(false);

      // No DATA_DIR: ./data of the working directory, which is not the server's.
      const elsewhere = folder('nh-cli-cwd-');
      expect(await runCli(create, {}, elsewhere)).toEqual({ code: 1, stdout: '', stderr: refusal(join(elsewhere, 'data')) });
      expect(existsSync(join(elsewhere, 'data'))).toBe(false);

      // The server's folder still works through the server, and the refused user went nowhere.
      const listed = await runCli(['users:list'], { DATA_DIR: serving });
      expect(listed).toMatchObject({ code: 0, stderr: '' });
      expect(listed.stdout).toContain('owner@nodeharbor.test');
      expect(listed.stdout).not.toContain('lost@nodeharbor.test');

      // Asked for, a new database is made, and the command runs on it.
      expect(await runCli([...create, '--create'], { DATA_DIR: empty })).toEqual({ code: 0, stdout: 'Created lost@nodeharbor.test\n', stderr: '' });
      const again = await runCli(['users:list'], { DATA_DIR: empty });
      expect(again).toMatchObject({ code: 0, stderr: '' });
      expect(again.stdout).toContain('lost@nodeharbor.test');
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
    }
  },
  300_000,
);

it.runIf(TEST_DB === 'postgres' && (await postgresAnswers()))(
  'on PostgreSQL, the data folder is not looked at',
  async () => {
    const db = await createPostgresDatabase('nh_cli_folder');
    cleanUps.push(() => db.drop());
    const env = {
      DATABASE_URL: db.url,
      JWT_SECRET: 'cli-folder-test-secret-that-is-long-enough-0123456789',
      ENCRYPTION_KEY: 'cli-folder-test-encryption-key-long-enough-0123456789',
      DATA_DIR: join(folder(), 'not-made'),
    };
    expect(await runCli(create, env)).toEqual({ code: 0, stdout: 'Created lost@nodeharbor.test\n', stderr: '' });
  },
  120_000,
);
