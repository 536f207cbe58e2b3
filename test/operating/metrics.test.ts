import { getRequestListener } from '@hono/node-server';
import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { networkInterfaces } from 'node:os';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/server/app';
import { openPostgres } from '../../src/server/db/postgres';
import { createHttpServer } from '../../src/server/http/http-server';
import { enqueue } from '../../src/server/jobs/queue';
import { LOCAL_ONLY, TOKEN_REQUIRED } from '../../src/server/metrics/metrics-access';
import { UNMATCHED } from '../../src/server/metrics/metrics';
import { createTestDatabase, TEST_DB } from '../helpers/database';
import { parseMetrics, samplesOf, sampleValue } from '../helpers/prometheus';
import { startTestServer, type TestServer } from '../helpers/server';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy';
import { createService, createTestUser } from '../helpers/users';
import { expectLedgerBalanced } from '../helpers/ledger';

const TOKEN = 'metrics-token-for-the-tests-0123456789';

/** This machine's first address that is not loopback, to reach a server as another machine would; undefined when it has none. */
const outsideAddress = Object.values(networkInterfaces())
  .flat()
  .find((i) => i && i.family === 'IPv4' && !i.internal)?.address;

/** GET `path` on `host`:`port` with these headers, answered as status and body (node:http: fetch drops no headers, but this says which socket). */
function get(
  host: string,
  port: number,
  path: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: string; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const req = request({ host, port, path, headers, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode!, body, headers: res.headers }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('/metrics without METRICS_TOKEN', () => {
  let s: TestServer;
  let outside: Server | undefined;
  beforeAll(async () => {
    s = await startTestServer({ RATE_LIMITS_ENABLED: 'false' });
  });
  // Money moves here: every balance stays its ledger's sum.
  afterEach(() => expectLedgerBalanced(s.deps.db));
  afterAll(async () => {
    if (outside) await new Promise((r) => outside!.close(r));
    await s.stop();
  });
  const scrape = async () => {
    const port = Number(new URL(s.url).port);
    const r = await get('127.0.0.1', port, '/metrics');
    expect(r.status, r.body).toBe(200);
    expect(r.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    return parseMetrics(r.body);
  };

  it("answers this machine in Prometheus' text format, with the process metrics", async () => {
    const families = await scrape();
    expect([...families.types.keys()]).toEqual(
      expect.arrayContaining(['process_resident_memory_bytes', 'nodejs_eventloop_lag_seconds', 'nodeharbor_database_up']),
    );
    expect(sampleValue(families, 'nodeharbor_database_up')).toBe(1);
    expect(sampleValue(families, 'process_resident_memory_bytes')).toBeGreaterThan(0);
    expect(families.types.get('nodeharbor_http_requests_total')).toBe('counter');
    expect(families.types.get('nodeharbor_http_request_duration_seconds')).toBe('histogram');
  });

  // Without an address but loopback nothing here can connect as another machine; metrics-access.test.ts still decides it.
  it.skipIf(!outsideAddress)('refuses a client on another address 403, whatever X-Forwarded-For it forges, and tells it nothing', async () => {
    // The same app on an address that is not loopback: the peer is then this machine's outside address.
    outside = createHttpServer(s.deps.config);
    outside.on('request', getRequestListener(createApp(s.deps).fetch));
    await new Promise<void>((r) => outside!.listen(0, outsideAddress, r));
    const port = (outside.address() as AddressInfo).port;
    for (const headers of [{}, { 'X-Forwarded-For': '127.0.0.1' }, { 'X-Real-IP': '127.0.0.1' }, { Authorization: `Bearer ${TOKEN}` }] as Record<
      string,
      string
    >[]) {
      const r = await get(outsideAddress!, port, '/metrics', headers);
      expect(r.status).toBe(403);
      expect(JSON.parse(r.body)).toEqual({ message: LOCAL_ONLY });
      expect(r.body).not.toContain('nodeharbor_');
    }
    // The same listener answers other paths from there: only /metrics is refused.
    expect((await get(outsideAddress!, port, '/healthz')).status).toBe(200);
  });

  it('refuses 403 a request from this machine that names a forwarded client (a proxy here)', async () => {
    const port = Number(new URL(s.url).port);
    const r = await get('127.0.0.1', port, '/metrics', { 'X-Forwarded-For': '203.0.113.7' });
    expect(r.status).toBe(403);
    expect(r.body).not.toContain('nodeharbor_');
  });

  it('counts a request under its route pattern, never its path, and unknown paths under one label', async () => {
    const before = await scrape();
    const table = { method: 'GET', route: '/rest/v1/:table', status: '200' };
    const rpc = { method: 'POST', route: '/rest/v1/rpc/:fn', status: '404' };
    const unknown = `/no-such-page-${randomUUID()}`;
    const read = await fetch(`${s.url}/rest/v1/products?select=id`, { headers: { apikey: s.anonKey } });
    expect(read.status).toBe(200);
    await read.arrayBuffer();
    const call = await fetch(`${s.url}/rest/v1/rpc/no_such_function_${randomUUID().slice(0, 8)}`, {
      method: 'POST',
      headers: { apikey: s.anonKey, 'Content-Type': 'application/json' },
      body: '{}',
    });
    await call.arrayBuffer();
    expect(call.status).toBe(404);
    const missing = await fetch(`${s.url}${unknown}`);
    await missing.arrayBuffer();
    const after = await scrape();
    const text = JSON.stringify(after.samples);
    expect((sampleValue(after, 'nodeharbor_http_requests_total', table) ?? 0) - (sampleValue(before, 'nodeharbor_http_requests_total', table) ?? 0)).toBe(1);
    expect((sampleValue(after, 'nodeharbor_http_requests_total', rpc) ?? 0) - (sampleValue(before, 'nodeharbor_http_requests_total', rpc) ?? 0)).toBe(1);
    expect(sampleValue(after, 'nodeharbor_http_request_duration_seconds_count', table)).toBe(sampleValue(after, 'nodeharbor_http_requests_total', table));
    expect(sampleValue(after, 'nodeharbor_http_request_duration_seconds_bucket', { ...table, le: '+Inf' })).toBe(
      sampleValue(after, 'nodeharbor_http_requests_total', table),
    );
    expect(sampleValue(after, 'nodeharbor_http_requests_total', { method: 'GET', route: UNMATCHED, status: '404' })).toBeGreaterThanOrEqual(1);
    expect(text).not.toContain('products');
    expect(text).not.toContain('no_such_function');
    expect(text).not.toContain(unknown);
  });

  it('counts due jobs by task and lane, with the age of the oldest, from the database', async () => {
    const waiting = { task: 'prune-jobs', lane: 'upkeep' };
    const before = await scrape();
    expect(sampleValue(before, 'nodeharbor_jobs_waiting', waiting)).toBe(0);
    expect(sampleValue(before, 'nodeharbor_jobs_oldest_waiting_seconds', { lane: 'upkeep' })).toBe(0);
    await enqueue(s.deps.db, 'prune-jobs', {}, { runAt: new Date(Date.now() - 3_600_000) });
    // Not due yet: not waiting.
    await enqueue(s.deps.db, 'prune-jobs', {}, { runAt: new Date(Date.now() + 3_600_000) });
    const after = await scrape();
    expect(sampleValue(after, 'nodeharbor_jobs_waiting', waiting)).toBe(1);
    expect(sampleValue(after, 'nodeharbor_jobs_oldest_waiting_seconds', { lane: 'upkeep' })).toBeGreaterThanOrEqual(3600);
    expect(sampleValue(after, 'nodeharbor_jobs_waiting', { task: 'install-service', lane: 'nodes' })).toBe(0);
  });

  it('counts services by state, and payments by status', async () => {
    const before = await scrape();
    expect(sampleValue(before, 'nodeharbor_services', { state: 'installing' })).toBe(0);
    expect(sampleValue(before, 'nodeharbor_payments', { status: 'pending' })).toBe(0);
    const user = await createTestUser(s, { credits: 50 });
    await createService(user, `metrics-${randomUUID().slice(0, 8)}`);
    await s.deps.db.query(`insert into public.credit_purchases (user_id, amount, provider) values ($1, 10, 'test')`, [user.id]);
    const after = await scrape();
    expect(sampleValue(after, 'nodeharbor_services', { state: 'installing' })).toBe(1);
    expect(sampleValue(after, 'nodeharbor_services', { state: 'active' })).toBe(0);
    expect(sampleValue(after, 'nodeharbor_payments', { status: 'pending' })).toBe(1);
    expect(sampleValue(after, 'nodeharbor_jobs_waiting', { task: 'install-service', lane: 'nodes' })).toBe(1);
  });

  it(`reports the ${TEST_DB === 'postgres' ? "pool's connections" : 'embedded database without a pool'}`, async () => {
    const families = await scrape();
    if (TEST_DB === 'postgres') {
      expect(sampleValue(families, 'nodeharbor_database_pool_connections')).toBeGreaterThanOrEqual(1);
      expect(sampleValue(families, 'nodeharbor_database_pool_waiting')).toBe(0);
    } else {
      expect(samplesOf(families, 'nodeharbor_database_pool_connections')).toEqual([]);
    }
    expect(sampleValue(families, 'nodeharbor_database_caller_waiting')).toBe(0);
  });
});

describe('/metrics with METRICS_TOKEN', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({ METRICS_TOKEN: TOKEN });
  });
  afterAll(async () => s.stop());
  const port = () => Number(new URL(s.url).port);

  it('answers the token', async () => {
    const r = await get('127.0.0.1', port(), '/metrics', { Authorization: `Bearer ${TOKEN}` });
    expect(r.status).toBe(200);
    expect(sampleValue(parseMetrics(r.body), 'nodeharbor_database_up')).toBe(1);
  });

  it('refuses 401, even this machine, without it or with another of any length', async () => {
    for (const authorization of [
      undefined,
      `Bearer ${'y'.repeat(TOKEN.length)}`,
      `Bearer ${TOKEN.slice(1)}`,
      `Bearer ${TOKEN}0`,
      'Bearer a',
      `Basic ${TOKEN}`,
    ]) {
      const r = await get('127.0.0.1', port(), '/metrics', authorization ? { Authorization: authorization } : {});
      expect(r.status).toBe(401);
      expect(r.headers['www-authenticate']).toBe('Bearer realm="metrics"');
      expect(JSON.parse(r.body)).toEqual({ message: TOKEN_REQUIRED });
    }
  });
});

/**
 * PGlite runs inside the server's process: there is no connection to lose. On PostgreSQL the
 * database goes away behind a TCP proxy the test cuts.
 */
describe.skipIf(TEST_DB === 'pglite')('/metrics while the database is away', () => {
  let proxy: TcpProxy;
  let s: TestServer;
  beforeAll(async () => {
    const direct = await createTestDatabase();
    await direct.db.close();
    const url = new URL(direct.url!);
    proxy = await startTcpProxy({ host: url.hostname, port: Number(url.port || 5432) });
    url.hostname = '127.0.0.1';
    url.port = String(proxy.port);
    const db = await openPostgres(url.toString(), 5);
    s = await startTestServer({}, { database: { db, url: url.toString(), drop: direct.drop } });
  });
  afterAll(async () => {
    await proxy.restore();
    await s.stop();
    await proxy.close();
  });

  it('still answers 200 with the process metrics, the database marked down and its numbers left out', async () => {
    await proxy.cut();
    const r = await get('127.0.0.1', Number(new URL(s.url).port), '/metrics');
    expect(r.status).toBe(200);
    const families = parseMetrics(r.body);
    expect(sampleValue(families, 'nodeharbor_database_up')).toBe(0);
    expect(sampleValue(families, 'process_resident_memory_bytes')).toBeGreaterThan(0);
    expect(samplesOf(families, 'nodeharbor_services')).toEqual([]);
    await proxy.restore();
    const back = await get('127.0.0.1', Number(new URL(s.url).port), '/metrics');
    expect(sampleValue(parseMetrics(back.body), 'nodeharbor_database_up')).toBe(1);
  });
});
