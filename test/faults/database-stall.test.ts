import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPostgres } from '../../src/server/db/postgres';
import { createTestDatabase, TEST_DB } from '../helpers/database';
import { startTestServer, type TestServer } from '../helpers/server';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy';
import { createTestUser, type TestUser } from '../helpers/users';
import { letTimePass } from '../helpers/wait';

/** The deadlines under test: the least DATABASE_QUERY_TIMEOUT_MS allows, and the pool's default wait. */
const QUERY_TIMEOUT_MS = 10_000;
const POOL_TIMEOUT_MS = 2_000;
/** What a loaded machine adds to a deadline before the answer reaches the test. */
const SLACK_MS = 3_000;
/** How long an API request may take while the database hangs: one statement's deadline, after a wait for a connection. */
const API_BOUND_MS = QUERY_TIMEOUT_MS + POOL_TIMEOUT_MS + SLACK_MS;
/** /ready and /healthz answer within 2 s whatever the database does (issue 33, item 10). */
const PROBE_BOUND_MS = 2_000;

type Answer = { name: string; status: number; retryAfter: string | null; ms: number };

/**
 * A database that hangs rather than refuses (issue 33, item 10): PostgreSQL paused for 20 s, as
 * with SIGSTOP, its connections open and silent. Every request is answered within its deadline,
 * 503 with Retry-After or its usual answer, /live answers throughout, /ready and /healthz say 503
 * within 2 s, and the server serves normally once the database answers again. PGlite runs inside
 * the server's process: there is no connection to stall, so this runs on PostgreSQL only, through
 * a TCP proxy that holds every byte without closing anything.
 */
describe.skipIf(TEST_DB === 'pglite')('a database that hangs', () => {
  let proxy: TcpProxy;
  let s: TestServer;
  let admin: TestUser;
  let member: TestUser;
  const logLines: string[] = [];
  const logged = (msg: string) => logLines.map((l) => JSON.parse(l) as { msg: string }).filter((l) => l.msg === msg);

  beforeAll(async () => {
    const direct = await createTestDatabase();
    await direct.db.close();
    const url = new URL(direct.url!);
    proxy = await startTcpProxy({ host: url.hostname, port: Number(url.port || 5432) });
    url.hostname = '127.0.0.1';
    url.port = String(proxy.port);
    // As npm start opens it (db/open.ts), with the deadline this test sets.
    const db = await openPostgres(url.toString(), 5, { poolTimeoutMs: POOL_TIMEOUT_MS, queryTimeoutMs: QUERY_TIMEOUT_MS });
    s = await startTestServer(
      { RATE_LIMITS_ENABLED: 'false', DATABASE_QUERY_TIMEOUT_MS: String(QUERY_TIMEOUT_MS) },
      { database: { db, url: url.toString(), drop: direct.drop }, logLines },
    );
    admin = await createTestUser(s, { admin: true });
    member = await createTestUser(s);
  });
  afterAll(async () => {
    proxy.resume();
    await s.stop();
    await proxy.close();
  });

  const timed = async (name: string, send: () => Promise<Response>): Promise<Answer> => {
    const start = performance.now();
    const r = await send();
    await r.arrayBuffer();
    return { name, status: r.status, retryAfter: r.headers.get('retry-after'), ms: performance.now() - start };
  };
  const json = { 'Content-Type': 'application/json' };
  // Each caller (an address, a user) sends one request at a time: its fair share never makes it wait.
  const requests = {
    read: () => fetch(`${s.url}/rest/v1/products?select=id`, { headers: { apikey: s.anonKey } }),
    signIn: () =>
      fetch(`${s.url}/auth/v1/token?grant_type=password`, {
        method: 'POST',
        headers: { apikey: s.anonKey, ...json },
        body: JSON.stringify({ email: member.email, password: member.password }),
      }),
    write: () =>
      fetch(`${s.url}/rest/v1/rpc/admin_add_credit`, {
        method: 'POST',
        headers: { apikey: s.anonKey, Authorization: `Bearer ${admin.token}`, ...json },
        body: JSON.stringify({ p_user_id: admin.id, p_amount: 1, p_note: 'stall test', p_idempotency_key: randomUUID() }),
      }),
    ownRows: () => fetch(`${s.url}/rest/v1/credit_transactions?select=id&limit=1`, { headers: { apikey: s.anonKey, Authorization: `Bearer ${member.token}` } }),
    fn: () =>
      fetch(`${s.url}/functions/v1/contact-settings`, {
        method: 'POST',
        headers: { apikey: s.anonKey, Authorization: `Bearer ${member.token}`, ...json },
        body: '{}',
      }),
  };
  /** Each request's answer while the database answers (a member may not read the contact settings). */
  const usual: Record<string, number> = { read: 200, signIn: 200, write: 200, ownRows: 200, fn: 403 };

  it('answers every request within its deadline while PostgreSQL is paused for 20 s, /live throughout, and serves normally after', async () => {
    for (const [name, send] of Object.entries(requests)) expect((await timed(name, send)).status, name).toBe(usual[name]);

    proxy.stall();
    let stalled = true;
    const answers: Answer[] = [];
    const loop = async (names: (keyof typeof requests)[]) => {
      for (let i = 0; stalled; i++) answers.push(await timed(names[i % names.length]!, requests[names[i % names.length]!]));
    };
    const probe = async (name: 'live' | 'ready' | 'healthz') => {
      while (stalled) {
        answers.push(await timed(name, () => fetch(`${s.url}/${name}`)));
        await letTimePass(250, 'an orchestrator probes at an interval');
      }
    };
    const loops = [loop(['read', 'signIn']), loop(['write']), loop(['ownRows', 'fn']), probe('live'), probe('ready'), probe('healthz')];
    await letTimePass(20_000, 'PostgreSQL is paused for 20 s, as in the issue: the stall is the behaviour under test');
    proxy.resume();
    stalled = false;
    await Promise.all(loops);

    const slow = answers.filter((a) => a.ms > (['live', 'ready', 'healthz'].includes(a.name) ? PROBE_BOUND_MS : API_BOUND_MS));
    expect(slow.map((a) => `${a.name} ${Math.round(a.ms)} ms`)).toEqual([]);
    expect(answers.filter((a) => a.name === 'live' && a.status !== 200)).toEqual([]);
    expect(answers.filter((a) => a.name === 'live').length).toBeGreaterThan(20);
    // The probes said 503 while the database hung (the last may have caught its return).
    for (const probe of ['ready', 'healthz']) expect(answers.find((a) => a.name === probe)?.status, probe).toBe(503);
    const api = answers.filter((a) => a.name in requests);
    expect(api.filter((a) => a.status !== 503 && a.status !== usual[a.name])).toEqual([]);
    expect(api.filter((a) => a.status === 503).length).toBeGreaterThan(0);
    for (const a of api.filter((a) => a.status === 503)) expect(Number(a.retryAfter), a.name).toBeGreaterThan(0);
    expect(logged('database unavailable')).toHaveLength(1);

    // The database answers again: so does every route, on fresh connections.
    for (const [name, send] of Object.entries(requests)) expect((await timed(name, send)).status, name).toBe(usual[name]);
    for (const probe of ['ready', 'healthz']) expect((await fetch(`${s.url}/${probe}`)).status, probe).toBe(200);
    expect(logged('database available again')).toHaveLength(1);
  }, 120_000);
});
