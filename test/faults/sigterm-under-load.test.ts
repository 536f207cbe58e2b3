import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/server/db/database';
import { openPglite } from '../../src/server/db/pglite';
import { openPostgres } from '../../src/server/db/postgres';
import { createPostgresDatabase, migratedDataFolder, postgresAnswers, TEST_DB } from '../helpers/database';
import { spawnServer, type ServerProcess } from '../helpers/process';
import { until } from '../helpers/wait';

// npm start stopped with SIGTERM while keep-alive clients write (issue 33, item 11), on the
// embedded database (one process) and on PostgreSQL (the cluster's primary and two HTTP processes).
// SHUTDOWN_GRACE_SECONDS is left at its default, which an orchestrator's 10 s stop timeout must cover.

type Setting = {
  name: string;
  env: () => Promise<Record<string, string>>;
  open: (env: Record<string, string>) => Promise<Database>;
  cleanUp: () => Promise<void>;
};
const common = { RATE_LIMITS_ENABLED: 'false', ADMIN_EMAIL: 'owner@nodeharbor.test' };
const settings: Setting[] = [];
let dir: string | undefined;
let scratch: Awaited<ReturnType<typeof createPostgresDatabase>> | undefined;
if (TEST_DB === 'pglite') {
  settings.push({
    name: 'the embedded database',
    env: async () => ({ ...common, DATA_DIR: (dir = await migratedDataFolder(mkdtempSync(join(tmpdir(), 'nh-sigterm-')))) }),
    open: (env) => openPglite(env.DATA_DIR),
    cleanUp: async () => {
      if (dir) rmSync(dir, { recursive: true, force: true });
    },
  });
} else if (await postgresAnswers()) {
  settings.push({
    name: 'PostgreSQL',
    env: async () => {
      scratch = await createPostgresDatabase('nh_sigterm');
      return {
        ...common,
        DATABASE_URL: scratch.url,
        WEB_CONCURRENCY: '2',
        JWT_SECRET: 'sigterm-test-secret-that-is-long-enough-0123456789',
        ENCRYPTION_KEY: 'sigterm-test-encryption-key-long-enough-0123456789',
      };
    },
    open: (env) => openPostgres(env.DATABASE_URL!, 2),
    cleanUp: async () => scratch?.drop(),
  });
}

/** The orchestrator's stop timeout the issue names (Docker's default): the process must be gone by then. */
const STOP_TIMEOUT_MS = 10_000;
const WRITERS = 6;

/** What became of one request: answered (with its status), or failed with the client's error code. */
type Outcome = { status: number; key: string; afterSignal: boolean } | { error: string; afterSignal: boolean };

describe.each(settings)('npm start on $name, stopped with SIGTERM under load', ({ env: makeEnv, open, cleanUp }) => {
  let server: ServerProcess | undefined;
  afterAll(async () => {
    server?.child.kill('SIGKILL');
    await server?.exited;
    await cleanUp();
  });

  it('exits within 10 s, answers every request in flight or refuses it at connect, and keeps every acknowledged write', async () => {
    const env = await makeEnv();
    server = await spawnServer(env, { timeoutMs: 240_000 });
    const password = /password:\s+(\S+)/.exec(server.output())?.[1];
    expect(password, server.output()).toBeTruthy();
    const { url } = server;
    const anonKey = ((await (await fetch(`${url}/config.json`)).json()) as { supabaseAnonKey: string }).supabaseAnonKey;
    const session = (await (
      await fetch(`${url}/auth/v1/token?grant_type=password`, {
        method: 'POST',
        headers: { apikey: anonKey, 'Content-Type': 'application/json' },
        body: JSON.stringify({ email: common.ADMIN_EMAIL, password }),
      })
    ).json()) as { access_token: string; user: { id: string } };

    // Each writer reuses its keep-alive connection (fetch's pool) for one credit after another,
    // until a new connection is refused: the server has stopped listening.
    let signalled = false;
    const outcomes: Outcome[] = [];
    const write = async () => {
      for (;;) {
        const key = randomUUID();
        try {
          const r = await fetch(`${url}/rest/v1/rpc/admin_add_credit`, {
            method: 'POST',
            headers: { apikey: anonKey, Authorization: `Bearer ${session.access_token}`, 'Content-Type': 'application/json' },
            body: JSON.stringify({ p_user_id: session.user.id, p_amount: 1.25, p_note: 'sigterm test', p_idempotency_key: key }),
          });
          await r.arrayBuffer();
          outcomes.push({ status: r.status, key, afterSignal: signalled });
        } catch (e) {
          const code = ((e as { cause?: { code?: string } }).cause?.code ?? String(e)) as string;
          outcomes.push({ error: code, afterSignal: signalled });
          return;
        }
      }
    };
    const writers = Array.from({ length: WRITERS }, write);
    await until('40 credits acknowledged', () => outcomes.filter((o) => 'status' in o && o.status === 200).length >= 40, 120_000, 5);

    const signalledAt = performance.now();
    signalled = true;
    server.child.kill('SIGTERM');
    const code = await server.exited;
    const stoppedMs = performance.now() - signalledAt;
    await Promise.all(writers);
    const late = outcomes.filter((o) => o.afterSignal && 'status' in o).length;
    console.log(`${env.DATABASE_URL ? 'PostgreSQL' : 'PGlite'}: exited ${Math.round(stoppedMs)} ms after SIGTERM; ${late} requests answered after the signal`);

    expect(code, server.output()).toBe(0);
    expect(stoppedMs).toBeLessThan(STOP_TIMEOUT_MS);
    // Every request was answered, or refused when it connected: none was cut off (ECONNRESET,
    // undici's "other side closed") after it was sent.
    expect(outcomes.filter((o) => 'error' in o && o.error !== 'ECONNREFUSED')).toEqual([]);
    // Nothing in flight met a database closed under it (503) or a failure of ours (500); a slow
    // statement on a loaded machine may still meet its own deadline (504).
    expect(outcomes.filter((o) => 'status' in o && (o.status === 500 || o.status === 503))).toEqual([]);
    expect(outcomes.filter((o) => 'error' in o)).toHaveLength(WRITERS);

    const acknowledged = outcomes.flatMap((o) => ('status' in o && o.status === 200 ? [o.key] : []));
    const db = await open(env);
    try {
      const { rows } = await db.query<{ key: string }>(
        `select split_part(idempotency_key, ':', 3) as key from public.credit_transactions where user_id = $1 and idempotency_key like 'admin:%'`,
        [session.user.id],
      );
      const kept = new Set(rows.map((r) => r.key));
      expect(acknowledged.filter((key) => !kept.has(key))).toEqual([]);
    } finally {
      await db.close();
    }
    console.log(`${acknowledged.length} credits acknowledged, all kept; every writer then refused at connect`);
    server = undefined;
  }, 420_000);
});
