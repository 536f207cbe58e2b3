import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createPostgresDatabase, migratedDataFolder, postgresAnswers, TEST_DB } from '../helpers/database';
import { spawnServer, type ServerProcess } from '../helpers/process';
import { until } from '../helpers/wait';

type Setting = { name: string; env: () => Promise<Record<string, string>>; cleanUp: () => Promise<void> };
// PUBLIC_URL: one for both starts, as a restarted site keeps its address; sessions' tokens name it.
const common = { RATE_LIMITS_ENABLED: 'false', ADMIN_EMAIL: 'owner@nodeharbor.test', PUBLIC_URL: 'http://127.0.0.1:8080' };
let scratch: Awaited<ReturnType<typeof createPostgresDatabase>> | undefined;
const settings: Setting[] = [];
if (TEST_DB === 'pglite') {
  settings.push({
    name: 'the embedded database',
    env: async () => ({ ...common, DATA_DIR: await migratedDataFolder(mkdtempSync(join(tmpdir(), 'nh-durable-'))) }),
    cleanUp: async () => {},
  });
} else if (await postgresAnswers()) {
  settings.push({
    name: 'PostgreSQL',
    env: async () => {
      scratch = await createPostgresDatabase('nh_sigkill');
      return {
        ...common,
        DATABASE_URL: scratch.url,
        JWT_SECRET: 'sigkill-test-secret-that-is-long-enough-0123456789',
        ENCRYPTION_KEY: 'sigkill-test-encryption-key-long-enough-0123456789',
      };
    },
    cleanUp: async () => scratch?.drop(),
  });
}

describe.each(settings)('the server on $name after a SIGKILL', ({ env: makeEnv, cleanUp }) => {
  let server: ServerProcess | undefined;
  afterAll(async () => {
    server?.child.kill('SIGKILL');
    await server?.exited;
    await cleanUp();
  });

  it('keeps every write that was answered 2xx, and every balance equals its ledger', async () => {
    const env = await makeEnv();
    server = await spawnServer(env);
    const password = /password:\s+(\S+)/.exec(server.output())?.[1];
    expect(password, server.output()).toBeTruthy();
    const anonKey = ((await (await fetch(`${server.url}/config.json`)).json()) as { supabaseAnonKey: string }).supabaseAnonKey;
    const signIn = async (url: string) => {
      const r = await fetch(`${url}/auth/v1/token?grant_type=password`, {
        method: 'POST',
        headers: { apikey: anonKey, 'Content-Type': 'application/json' },
        body: JSON.stringify({ email: common.ADMIN_EMAIL, password }),
      });
      return r.ok ? ((await r.json()) as { access_token: string; user: { id: string } }) : undefined;
    };
    const admin = (await signIn(server.url))!;

    // Each sign-in writes a session and a refresh token; each credit a ledger row and the balance.
    const sessions: string[] = [];
    const credits: string[] = [];
    let stop = false;
    const url = server.url;
    const writeSessions = async () => {
      while (!stop) {
        try {
          const s = await signIn(url);
          if (s) sessions.push(s.access_token);
        } catch {
          return; // the server is gone
        }
      }
    };
    const writeCredits = async () => {
      while (!stop) {
        const key = randomUUID();
        try {
          const r = await fetch(`${url}/rest/v1/rpc/admin_add_credit`, {
            method: 'POST',
            headers: { apikey: anonKey, Authorization: `Bearer ${admin.access_token}`, 'Content-Type': 'application/json' },
            body: JSON.stringify({ p_user_id: admin.user.id, p_amount: 1.25, p_note: 'fault test', p_idempotency_key: key }),
          });
          if (r.ok) credits.push(key);
        } catch {
          return;
        }
      }
    };
    const streams = [...Array.from({ length: 4 }, writeSessions), ...Array.from({ length: 4 }, writeCredits)];
    await until('30 sign-ins and 30 credits answered 2xx', () => sessions.length >= 30 && credits.length >= 30, 240_000, 5);
    server.child.kill('SIGKILL');
    stop = true;
    await Promise.all(streams);
    await server.exited;

    server = await spawnServer(env);
    expect(server.output()).not.toMatch(/password:/);
    for (const token of sessions) {
      const r = await fetch(`${server.url}/auth/v1/user`, { headers: { apikey: anonKey, Authorization: `Bearer ${token}` } });
      expect(r.status).toBe(200);
    }
    const again = (await signIn(server.url))!;
    const read = async <T>(path: string) =>
      (await (await fetch(`${server!.url}/rest/v1/${path}`, { headers: { apikey: anonKey, Authorization: `Bearer ${again.access_token}` } })).json()) as T;
    const ledger = await read<{ amount: string; idempotency_key: string }[]>(`credit_transactions?select=amount,idempotency_key&user_id=eq.${admin.user.id}`);
    const [credit] = await read<{ balance: string }[]>(`user_credits?select=balance&user_id=eq.${admin.user.id}`);
    // admin_add_credit keys its ledger row by the admin who gave it: admin:<id>:<key>.
    const found = new Set(ledger.map((row) => row.idempotency_key.split(':').at(-1)));
    expect(credits.filter((key) => !found.has(key))).toEqual([]);
    expect(Number(credit!.balance)).toBeCloseTo(
      ledger.reduce((sum, row) => sum + Number(row.amount), 0),
      2,
    );
    console.log(
      `${env.DATABASE_URL ? 'PostgreSQL' : 'PGlite'}: ${sessions.length} sessions and ${credits.length} credits acknowledged before the SIGKILL; all found, the balance equals its ${ledger.length} ledger rows`,
    );
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
    server = undefined;
  }, 180_000);
});
