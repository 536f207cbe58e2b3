import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPostgres } from '../../src/server/db/postgres';
import { createTestDatabase, TEST_DB } from '../helpers/database';
import { startTestServer, type TestServer } from '../helpers/server';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy';
import { createTestUser, GALA_KEY, TOWN_STAR, type TestUser } from '../helpers/users';

/**
 * The database goes away and comes back (issue 18, item 2): every API answers 503 with
 * Retry-After, promptly, the readiness probe says so, the log says it once, and all recovers
 * without a restart. PGlite runs inside the server's own process: there is no connection to lose,
 * so this runs on PostgreSQL only, through a TCP proxy the test cuts and restores.
 */
describe.skipIf(TEST_DB === 'pglite')('a database outage', () => {
  let proxy: TcpProxy;
  let s: TestServer;
  let user: TestUser;
  const logLines: string[] = [];
  const logged = (msg: string) => logLines.map((l) => JSON.parse(l) as { msg: string; level: string }).filter((l) => l.msg === msg);

  beforeAll(async () => {
    const direct = await createTestDatabase();
    await direct.db.close();
    const url = new URL(direct.url!);
    proxy = await startTcpProxy({ host: url.hostname, port: Number(url.port || 5432) });
    url.hostname = '127.0.0.1';
    url.port = String(proxy.port);
    const db = await openPostgres(url.toString(), 5);
    s = await startTestServer({ RATE_LIMITS_ENABLED: 'false' }, { database: { db, url: url.toString(), drop: direct.drop }, logLines });
    user = await createTestUser(s, { credits: 100 });
  });
  afterAll(async () => {
    await proxy.restore();
    await s.stop();
    await proxy.close();
  });

  const signIn = () =>
    fetch(`${s.url}/auth/v1/token?grant_type=password`, {
      method: 'POST',
      headers: { apikey: s.anonKey, 'Content-Type': 'application/json', 'X-Supabase-Api-Version': '2024-01-01' },
      body: JSON.stringify({ email: user.email, password: user.password }),
    });
  const read = () => fetch(`${s.url}/rest/v1/products?select=id`, { headers: { apikey: s.anonKey } });
  let services = 0;
  const rpc = () =>
    fetch(`${s.url}/rest/v1/rpc/create_service_securely`, {
      method: 'POST',
      headers: { apikey: s.anonKey, Authorization: `Bearer ${user.token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ p_name: `outage${++services}`, p_description: null, p_api_key: GALA_KEY, p_product_id: TOWN_STAR }),
    });
  const fn = () =>
    fetch(`${s.url}/functions/v1/contact-settings`, {
      method: 'POST',
      headers: { apikey: s.anonKey, Authorization: `Bearer ${user.token}`, 'Content-Type': 'application/json' },
      body: '{}',
    });
  const ready = () => fetch(`${s.url}/healthz`);

  it('answers 503 with Retry-After everywhere while the database is away, logs it once, and recovers', async () => {
    // Up: the routes work, and the schema cache knows the function.
    expect((await signIn()).status).toBe(200);
    expect((await rpc()).status).toBe(200);

    await proxy.cut();
    for (let round = 0; round < 3; round++) {
      const [signedIn, rows, called, invoked, probe] = await Promise.all([signIn(), read(), rpc(), fn(), ready()]);
      for (const r of [signedIn, rows, called, invoked]) {
        expect(r.status, r.url).toBe(503);
        expect(Number(r.headers.get('retry-after')), r.url).toBeGreaterThan(0);
      }
      expect(probe.status).toBe(503);
      expect(await signedIn.json()).toMatchObject({ code: 'service_unavailable' });
      expect(signedIn.headers.get('x-sb-error-code')).toBe('service_unavailable');
      // PostgREST's shape, with the driver's reason as its code.
      const body = (await rows.json()) as Record<string, unknown>;
      expect(Object.keys(body).sort()).toEqual(['code', 'details', 'hint', 'message']);
      expect(rows.headers.get('proxy-status')).toMatch(/^PostgREST; error=/);
      expect(await invoked.json()).toMatchObject({ error: expect.any(String) });
    }
    expect(logged('database unavailable')).toHaveLength(1);
    // No request logged a failure of its own, with a stack.
    expect(logLines.filter((l) => /"level":"error"/.test(l) && !/database unavailable/.test(l))).toEqual([]);

    await proxy.restore();
    expect((await signIn()).status).toBe(200);
    expect((await read()).status).toBe(200);
    expect((await rpc()).status).toBe(200);
    // A signed-in user who is no admin: the function's own answer again.
    expect((await fn()).status).toBe(403);
    expect((await ready()).status).toBe(200);
    expect(logged('database available again')).toHaveLength(1);
    expect(logged('database unavailable')).toHaveLength(1);
  });
});
