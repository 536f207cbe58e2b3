import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createPostgresDatabase, migratedDataFolder, TEST_DB } from '../helpers/database';
import { spawnServer, type ServerProcess } from '../helpers/process';
import { parseMetrics, sampleValue } from '../helpers/prometheus';
import { until } from '../helpers/wait';

// npm start's HTTP processes (issue 21): one per WEB_CONCURRENCY on PostgreSQL behind one port,
// the job worker in the primary alone.

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};
const started = (output: string) =>
  output
    .split('\n')
    .filter((l) => l.includes('"HTTP process started"'))
    .map((l) => (JSON.parse(l) as { pid: number }).pid);
const lines = (output: string, msg: string) => output.split('\n').filter((l) => l.includes(`"msg":"${msg}"`));

describe.runIf(TEST_DB === 'postgres')('npm start on PostgreSQL with WEB_CONCURRENCY=3', () => {
  let scratch: Awaited<ReturnType<typeof createPostgresDatabase>> | undefined;
  let server: ServerProcess | undefined;
  afterAll(async () => {
    server?.child.kill('SIGKILL');
    await server?.exited;
    await scratch?.drop();
  });

  it('serves from every process, sums their metrics, replaces killed ones, holds the port, stops all on SIGTERM', { timeout: 120_000 }, async () => {
    scratch = await createPostgresDatabase('nh_cluster');
    server = await spawnServer({
      DATABASE_URL: scratch.url,
      JWT_SECRET: 'cluster-test-secret-that-is-long-enough-0123456789',
      ENCRYPTION_KEY: 'cluster-test-encryption-key-long-enough-0123456789',
      WEB_CONCURRENCY: '3',
      LOG_LEVEL: 'info',
    });
    const s = server;
    // /healthz answers once the first process listens; the primary says so when all three do.
    const listening = await until('all to listen', () => lines(s.output(), 'listening')[0]);
    expect(JSON.parse(listening)).toMatchObject({ database: 'postgres', httpProcesses: 3 });
    const first = started(s.output());
    expect(first).toHaveLength(3);
    expect(lines(s.output(), 'worker started')).toHaveLength(1);
    // The worker is the primary's: an HTTP process's readiness is its database and migrations.
    const ready = await fetch(`${s.url}/ready`, { headers: { Connection: 'close' } });
    expect([ready.status, await ready.json()]).toEqual([200, { status: 'ready', checks: { process: 'ok', database: 'ok', migrations: 'ok' } }]);

    // A connection each, accepted by whichever process takes it from the shared socket first.
    for (let i = 0; i < 30; i++) expect((await fetch(`${s.url}/config.json`, { headers: { Connection: 'close' } })).status).toBe(200);
    const counted = async () => {
      const res = await fetch(`${s.url}/metrics`, { headers: { Connection: 'close' } });
      expect(res.status).toBe(200);
      return sampleValue(parseMetrics(await res.text()), 'nodeharbor_http_requests_total', { method: 'GET', route: '/config.json', status: '200' });
    };
    // One process alone counted about a third of them.
    expect(await counted()).toBe(30);

    process.kill(first[0]!, 'SIGKILL');
    const replacement = await until('a replacement', () => started(s.output()).find((pid) => !first.includes(pid)));
    expect(lines(s.output(), 'an HTTP process exited: starting another')[0]).toContain('"signal":"SIGKILL"');
    for (let i = 0; i < 9; i++) expect((await fetch(`${s.url}/healthz`, { headers: { Connection: 'close' } })).status).toBe(200);
    // The killed process's counts went with it: the others' remain.
    expect(await counted()).toBeLessThan(30);

    // Every HTTP process at once: the primary keeps the port's socket, so a connection made before
    // any replacement listens waits in its queue and is answered, not refused (decision 034).
    for (const pid of [...first.slice(1), replacement]) process.kill(pid, 'SIGKILL');
    await until('all three to exit', () => lines(s.output(), 'an HTTP process exited: starting another').length === 4);
    const waited = await fetch(`${s.url}/healthz`, { headers: { Connection: 'close' } });
    expect(waited.status).toBe(200);

    s.child.kill('SIGTERM');
    expect(await s.exited).toBe(0);
    for (const pid of started(s.output())) expect(alive(pid), `HTTP process ${pid}`).toBe(false);
    const stopping = lines(s.output(), 'shutting down');
    expect(stopping.filter((l) => l.includes('"signal":"SIGTERM"'))).toHaveLength(1);
    // The replacements serving by then (the last waits 10 s: three died young).
    expect(stopping.filter((l) => l.includes('"signal":"asked by the primary"')).length).toBeGreaterThanOrEqual(1);
  });
});

describe.runIf(TEST_DB === 'pglite')('npm start on the embedded database with WEB_CONCURRENCY=3', () => {
  const dir = mkdtempSync(join(tmpdir(), 'nh-cluster-'));
  let server: ServerProcess | undefined;
  afterAll(async () => {
    server?.child.kill('SIGKILL');
    await server?.exited;
    rmSync(dir, { recursive: true, force: true });
  });

  // A start under the suite's load has taken more than the 30 s default.
  it('serves from its one process, which owns the data folder, and says so', { timeout: 180_000 }, async () => {
    server = await spawnServer({ DATA_DIR: await migratedDataFolder(dir), WEB_CONCURRENCY: '3', LOG_LEVEL: 'info' }, { timeoutMs: 120_000 });
    expect(server.output()).toContain('WEB_CONCURRENCY is ignored on the embedded database: one process serves');
    expect(started(server.output())).toEqual([]);
    expect(JSON.parse(lines(server.output(), 'listening')[0]!)).toMatchObject({ database: 'pglite', httpProcesses: 1 });
    // The worker runs in this one process, so its readiness includes the worker's.
    const ready = await fetch(`${server.url}/ready`);
    expect([ready.status, await ready.json()]).toEqual([200, { status: 'ready', checks: { process: 'ok', database: 'ok', migrations: 'ok', worker: 'ok' } }]);
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
  });
});
