import { randomUUID } from 'node:crypto';
import { copyFileSync, existsSync, lstatSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openPglite } from '../../src/server/db/pglite';
import { openPostgres } from '../../src/server/db/postgres';
import type { Queryable } from '../../src/server/db/database';
import { createPostgresDatabase, migratedDataFolder, postgresAnswers, TEST_DB } from '../helpers/database';
import { spawnServer, type ServerProcess } from '../helpers/process';
import { until } from '../helpers/wait';
import { runCli } from './cli-process';
import { balancesOffTheLedger } from './data';

type Setting = {
  name: string;
  /** The server's and the CLI's settings. */
  env: () => Promise<Record<string, string>>;
  /** A fresh, empty target for a restore, and how to read it once the CLI is done. */
  target: (env: Record<string, string>) => Promise<{ env: Record<string, string>; read<T>(fn: (db: Queryable) => Promise<T>): Promise<T> }>;
};

const common = { RATE_LIMITS_ENABLED: 'false', ADMIN_EMAIL: 'owner@nodeharbor.test', PROVISION_INSTALL_SECONDS: '0' };
const cleanUps: (() => Promise<unknown>)[] = [];
const folder = () => {
  const dir = mkdtempSync(join(tmpdir(), 'nh-operating-'));
  cleanUps.push(async () => rmSync(dir, { recursive: true, force: true }));
  return dir;
};
const scratch = async () => {
  const db = await createPostgresDatabase('nh_operating');
  cleanUps.push(() => db.drop());
  return db;
};

const settings: Setting[] = [];
if (TEST_DB === 'pglite') {
  settings.push({
    name: 'the embedded database',
    env: async () => ({ ...common, DATA_DIR: await migratedDataFolder(folder()) }),
    target: async (env) => {
      // A new DATA_DIR given the old secrets.json, as the README says.
      const dir = folder();
      copyFileSync(join(env.DATA_DIR!, 'secrets.json'), join(dir, 'secrets.json'));
      return {
        env: { ...common, DATA_DIR: dir },
        async read(fn) {
          const db = await openPglite(dir);
          try {
            return await fn(db);
          } finally {
            await db.close();
          }
        },
      };
    },
  });
} else if (await postgresAnswers()) {
  const secrets = {
    JWT_SECRET: 'operating-test-secret-that-is-long-enough-0123456789',
    ENCRYPTION_KEY: 'operating-test-encryption-key-long-enough-0123456789',
  };
  settings.push({
    name: 'PostgreSQL',
    env: async () => ({ ...common, ...secrets, DATABASE_URL: (await scratch()).url }),
    target: async () => {
      const { url } = await scratch();
      return {
        env: { ...common, ...secrets, DATABASE_URL: url },
        async read(fn) {
          const db = await openPostgres(url, 2);
          try {
            return await fn(db);
          } finally {
            await db.close();
          }
        },
      };
    },
  });
}

afterAll(async () => {
  for (const clean of cleanUps.reverse()) await clean();
});

describe.each(settings)('the CLI while the server runs on $name', ({ env: makeEnv, target: makeTarget }) => {
  let server: ServerProcess | undefined;
  afterAll(async () => {
    server?.child.kill('SIGKILL');
    await server?.exited;
  });

  it('creates a user, adds credit and lists users; backs up while credits are being added, and the backup restores to a consistent ledger', async () => {
    const env = await makeEnv();
    server = await spawnServer(env);
    const socket = env.DATA_DIR ? join(env.DATA_DIR, 'control.sock') : undefined;
    if (socket) expect(lstatSync(socket).mode & 0o777).toBe(0o600);

    expect(await runCli(['users:create', '--email', 'cli@nodeharbor.test', '--password', 'correct-horse-battery', '--credits', '10'], env)).toEqual({
      code: 0,
      stdout: 'Created cli@nodeharbor.test\nBalance: $10.00\n',
      stderr: '',
    });
    expect(await runCli(['credits:add', '--email', 'cli@nodeharbor.test', '--amount', '2.5'], env)).toEqual({
      code: 0,
      stdout: 'Balance of cli@nodeharbor.test: $12.50\n',
      stderr: '',
    });
    const list = await runCli(['users:list'], env);
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(/^owner@nodeharbor\.test +Administrator +\d{4}-\d\d-\d\d never\ncli@nodeharbor\.test +- +\d{4}-\d\d-\d\d never\n$/);

    // The server sees the CLI's user at once: it signs in.
    const anonKey = ((await (await fetch(`${server.url}/config.json`)).json()) as { supabaseAnonKey: string }).supabaseAnonKey;
    const signIn = async (email: string, password: string) => {
      const r = await fetch(`${server!.url}/auth/v1/token?grant_type=password`, {
        method: 'POST',
        headers: { apikey: anonKey, 'Content-Type': 'application/json' },
        body: JSON.stringify({ email, password }),
      });
      expect(r.status).toBe(200);
      return (await r.json()) as { access_token: string; user: { id: string } };
    };
    await signIn('cli@nodeharbor.test', 'correct-horse-battery');
    const admin = await signIn(common.ADMIN_EMAIL, /password:\s+(\S+)/.exec(server.output())![1]!);

    // Credits go on being added through the API while the backup is taken; its path is the CLI's, not the server's.
    let stop = false;
    let credits = 0;
    const url = server.url;
    const writers = Array.from({ length: 3 }, async () => {
      while (!stop) {
        const r = await fetch(`${url}/rest/v1/rpc/admin_add_credit`, {
          method: 'POST',
          headers: { apikey: anonKey, Authorization: `Bearer ${admin.access_token}`, 'Content-Type': 'application/json' },
          body: JSON.stringify({ p_user_id: admin.user.id, p_amount: 0.75, p_note: 'during the backup', p_idempotency_key: randomUUID() }),
        });
        if (r.ok) credits += 1;
      }
    });
    const cwd = folder();
    let backedUp;
    try {
      await until('10 credits added through the API', () => credits >= 10, undefined, 10);
      backedUp = await runCli(['backup', '--out', 'during.jsonl.gz'], env, cwd);
    } finally {
      stop = true;
      await Promise.all(writers);
    }
    expect(backedUp.stderr).toBe('');
    expect(backedUp.stdout).toContain(`to ${join(cwd, 'during.jsonl.gz')}.`);
    expect(lstatSync(join(cwd, 'during.jsonl.gz')).mode & 0o777).toBe(0o600);

    const target = await makeTarget(env);
    // A new DATA_DIR holds no database yet: the restore makes it when asked to (--create; PostgreSQL ignores it).
    const restored = await runCli(['restore', '--from', join(cwd, 'during.jsonl.gz'), '--create'], target.env);
    expect(restored.stderr).toBe('');
    expect(restored.stdout).toMatch(/^Restored 2 user\(s\), 0 service\(s\) and \d+ ledger row\(s\)/m);
    expect(await target.read(balancesOffTheLedger)).toEqual([]);
    expect(await target.read(async (db) => (await db.query<{ email: string }>('select email from auth.users order by email')).rows)).toEqual([
      { email: 'cli@nodeharbor.test' },
      { email: 'owner@nodeharbor.test' },
    ]);
    console.log(`${credits} credits added through the API around a backup taken by the CLI; the restored ledger is consistent`);

    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
    server = undefined;
    if (socket) expect(existsSync(socket)).toBe(false);
  }, 300_000);

  it.runIf(TEST_DB === 'pglite')(
    'after a SIGKILL, the socket left behind is removed and the CLI opens the database itself',
    async () => {
      const env = await makeEnv();
      server = await spawnServer(env);
      server.child.kill('SIGKILL');
      await server.exited;
      server = undefined;
      const socket = join(env.DATA_DIR!, 'control.sock');
      expect(lstatSync(socket).isSocket()).toBe(true);
      const list = await runCli(['users:list'], env);
      expect(list).toMatchObject({ code: 0, stderr: '' });
      expect(list.stdout).toContain('owner@nodeharbor.test');
      expect(existsSync(socket)).toBe(false);
    },
    300_000,
  );
});
