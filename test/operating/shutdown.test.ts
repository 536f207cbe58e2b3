import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/server/db/database';
import { openPglite } from '../../src/server/db/pglite';
import { openPostgres } from '../../src/server/db/postgres';
import { claim } from '../../src/server/jobs/queue';
import { createPostgresDatabase, migratedDataFolder, postgresAnswers, TEST_DB } from '../helpers/database';
import { spawnServer, type ServerProcess } from '../helpers/process';
import { parseMetrics, sampleValue } from '../helpers/prometheus';
import { GALA_KEY, TOWN_STAR } from '../helpers/users';
import { until } from '../helpers/wait';

// npm start stopped with SIGTERM (issue 19): the real server process, one database through three
// starts. PGlite's data folder admits one process, so the test reads it only between them.

const ADMIN = 'owner@nodeharbor.test';
const common = {
  RATE_LIMITS_ENABLED: 'false',
  ADMIN_EMAIL: ADMIN,
  LOG_LEVEL: 'debug',
  WORKER_POLL_MS: '100',
  INSTALL_SETTLE_SECONDS: '0',
  REQUEST_TIMEOUT_SECONDS: '600',
};
type Setting = {
  name: string;
  env: () => Promise<Record<string, string>>;
  open: (env: Record<string, string>) => Promise<Database>;
  cleanUp: () => Promise<void>;
};
const settings: Setting[] = [];
let dir: string | undefined;
let scratch: Awaited<ReturnType<typeof createPostgresDatabase>> | undefined;
if (TEST_DB === 'pglite') {
  settings.push({
    name: 'the embedded database',
    env: async () => ({ ...common, DATA_DIR: (dir = await migratedDataFolder(mkdtempSync(join(tmpdir(), 'nh-shutdown-')))) }),
    open: (env) => openPglite(env.DATA_DIR),
    cleanUp: async () => {
      if (dir) rmSync(dir, { recursive: true, force: true });
    },
  });
} else if (await postgresAnswers()) {
  settings.push({
    name: 'PostgreSQL',
    env: async () => {
      scratch = await createPostgresDatabase('nh_shutdown');
      return {
        ...common,
        DATABASE_URL: scratch.url,
        JWT_SECRET: 'shutdown-test-secret-that-is-long-enough-0123456789',
        ENCRYPTION_KEY: 'shutdown-test-encryption-key-long-enough-0123456789',
      };
    },
    open: (env) => openPostgres(env.DATABASE_URL!, 2),
    cleanUp: async () => scratch?.drop(),
  });
}

const port = (url: string) => Number(new URL(url).port);
const logged = (server: ServerProcess, msg: string) => server.output().includes(`"msg":"${msg}"`);
const installsRunning = async (server: ServerProcess) =>
  sampleValue(parseMetrics(await (await fetch(`${server.url}/metrics`)).text()), 'nodeharbor_jobs_running', { task: 'install-service' });

/**
 * A request the server has begun: its headers sent with Expect: 100-continue, and the server's
 * 100 Continue read, so it is in flight before the test goes on. `finish` sends its body and
 * whatever follows on the connection, and resolves with all the server answered until it closed it.
 */
async function beginRequest(url: string, path: string, headers: Record<string, string>, body: string) {
  const socket = connect(port(url), '127.0.0.1');
  let received = '';
  const closed = new Promise<string>((resolve, reject) => {
    socket.on('data', (d: Buffer) => (received += d.toString()));
    socket.on('close', () => resolve(received));
    socket.on('error', reject);
  });
  const head = Object.entries({ ...headers, 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(body)), Expect: '100-continue' })
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('');
  socket.write(`POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${head}\r\n`);
  await until('100 Continue', async () => received.includes('HTTP/1.1 100 Continue\r\n\r\n'));
  return {
    finish: (after = '') => {
      socket.write(body + after);
      return closed;
    },
  };
}

/** Whether a new connection is refused (ECONNREFUSED). */
const refused = (url: string) =>
  new Promise<boolean>((resolve) => {
    const s = connect(port(url), '127.0.0.1');
    s.on('connect', () => {
      s.destroy();
      resolve(false);
    });
    s.on('error', (e: NodeJS.ErrnoException) => resolve(e.code === 'ECONNREFUSED'));
  });

describe.each(settings)('npm start on $name, stopped with SIGTERM', ({ env: makeEnv, open, cleanUp }) => {
  let server: ServerProcess | undefined;
  afterAll(async () => {
    server?.child.kill('SIGKILL');
    await server?.exited;
    await cleanUp();
  });

  it('answers the request in flight, refuses new connections, says 503 to /healthz, hands a running job back and exits 0; the next start finishes it', async () => {
    const env = await makeEnv();
    // A: a grace of 8 seconds, whose work is cut short after 5 (the rest is for closing), and an
    // install that would take ten minutes.
    server = await spawnServer({ ...env, SHUTDOWN_GRACE_SECONDS: '8', PROVISION_INSTALL_SECONDS: '600' }, { timeoutMs: 120_000 });
    const password = /password:\s+(\S+)/.exec(server.output())?.[1];
    expect(password, server.output()).toBeTruthy();
    const { url } = server;
    const anonKey = ((await (await fetch(`${url}/config.json`)).json()) as { supabaseAnonKey: string }).supabaseAnonKey;
    const signIn = JSON.stringify({ email: ADMIN, password });
    const session = (await (
      await fetch(`${url}/auth/v1/token?grant_type=password`, {
        method: 'POST',
        headers: { apikey: anonKey, 'Content-Type': 'application/json' },
        body: signIn,
      })
    ).json()) as { access_token: string; user: { id: string } };
    const rpc = async (fn: string, args: unknown) => {
      const r = await fetch(`${url}/rest/v1/rpc/${fn}`, {
        method: 'POST',
        headers: { apikey: anonKey, Authorization: `Bearer ${session.access_token}`, 'Content-Type': 'application/json' },
        body: JSON.stringify(args),
      });
      expect(r.status, await r.clone().text()).toBe(200);
      return r.json();
    };
    await rpc('admin_add_credit', { p_user_id: session.user.id, p_amount: 50, p_note: 'shutdown test' });
    await rpc('create_service_securely', { p_name: 'shutdown-node', p_description: null, p_api_key: GALA_KEY, p_product_id: TOWN_STAR });
    await until('the install to run', async () => (await installsRunning(server!)) === 1);

    const inFlight = await beginRequest(url, '/auth/v1/token?grant_type=password', { apikey: anonKey }, signIn);
    server.child.kill('SIGTERM');
    await until('the server to say it is shutting down', async () => logged(server!, 'shutting down'));
    // Across HTTP processes the primary holds the listening socket, and closes it once each process
    // has said it stopped listening: a moment after the line, which a loaded machine stretches.
    await until('a new connection to be refused', () => refused(url), 10_000);
    // The body arrives after the signal, and a health check follows on the same connection.
    const answered = await inFlight.finish('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    expect([...answered.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => m[1])).toEqual(['100', '200', '503']);
    expect(answered).toContain('"access_token"');
    expect(answered).toContain('{"status":"stopping"');
    // The last answer on the connection closes it: the client sends nothing more there.
    expect(answered.slice(answered.lastIndexOf('HTTP/1.1 503'))).toMatch(/\r\nConnection: close\r\n/i);
    expect(await server.exited).toBe(0);
    expect(logged(server, 'jobs handed back')).toBe(true);

    // Handed back: due at once, unclaimed, its attempt not spent, and claimable by the next worker.
    const db = await open(env);
    try {
      const { rows } = await db.query(`select status, attempts, locked_by, run_at <= now() as due from nodeharbor.jobs where task = 'install-service'`);
      expect(rows).toEqual([{ status: 'pending', attempts: 0, locked_by: null, due: true }]);
      const claimable = await db
        .transaction(async (tx) => {
          const jobs = await claim(tx, 'the-test', 10, 60, { tasks: ['install-service'], among: true });
          throw Object.assign(new Error('roll back'), { jobs });
        })
        .catch((e: { jobs?: unknown[] }) => e.jobs);
      expect(claimable).toHaveLength(1);
    } finally {
      await db.close();
    }

    // B: the next start takes the job; a SIGTERM while it runs lets it finish within the grace.
    // The worker starts before the HTTP processes, which a loaded machine took 24 s to start: the
    // install outlasts that, so that it still runs when the server answers.
    server = await spawnServer({ ...env, SHUTDOWN_GRACE_SECONDS: '120', PROVISION_INSTALL_SECONDS: '45' }, { timeoutMs: 120_000 });
    await until('the install to run again', async () => (await installsRunning(server!)) === 1);
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
    const lines = server.output().split('\n');
    const stopAt = lines.findIndex((l) => l.includes('"msg":"shutting down"'));
    const doneAt = lines.findIndex((l) => l.includes('"msg":"job done"') && l.includes('"task":"install-service"'));
    expect(stopAt).toBeGreaterThan(-1);
    expect(doneAt).toBeGreaterThan(stopAt);
    expect(logged(server, 'jobs handed back')).toBe(false);
    const after = await open(env);
    try {
      const { rows } = await after.query(`select status, attempts from nodeharbor.jobs where task = 'install-service'`);
      expect(rows).toEqual([{ status: 'done', attempts: 1 }]);
    } finally {
      await after.close();
    }

    // C: a long grace and a request that never finishes: a second SIGTERM exits at once.
    server = await spawnServer({ ...env, SHUTDOWN_GRACE_SECONDS: '3600' }, { timeoutMs: 120_000 });
    await beginRequest(server.url, '/auth/v1/token?grant_type=password', { apikey: anonKey }, signIn);
    server.child.kill('SIGTERM');
    await until('the server to say it is shutting down', async () => logged(server!, 'shutting down'));
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(1);
    expect(logged(server, 'stopped at once: a second signal')).toBe(true);
    server = undefined;
  }, 300_000);
});
