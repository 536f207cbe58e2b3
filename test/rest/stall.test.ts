import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SupabaseClient } from '@supabase/supabase-js';
import { RELOAD_INTERVAL_MS } from '../../src/server/rest/schema-cache';
import { TEST_DB } from '../helpers/database';
import { startTestServer, type TestServer } from '../helpers/server';
import { until } from '../helpers/wait';
import { rest, userClient, userToken } from './fixtures';

/**
 * Requests that could stall the whole server (issue 15, item 2): PGlite ignores statement_timeout
 * and runs on the server's thread, so a filter whose cost is unbounded must be refused before it
 * reaches the database. Timings live in bench/cases/rest-stall.ts; these check the answers.
 */
const BACKTRACKING = '(.+)(.+)(.+)\\3\\2\\1';

describe('REST refuses filters that could stall the server', () => {
  let s: TestServer;
  let user: SupabaseClient;
  beforeAll(async () => {
    s = await startTestServer();
    user = await userClient(s);
  });
  afterAll(() => s.stop());

  it('refuses regular expression filters from anonymous callers, while /config.json answers', async () => {
    const anon = s.client();
    const [m, im, config] = await Promise.all([
      anon.from('products').select('id').filter('description', 'match', BACKTRACKING),
      anon.from('products').select('id').filter('name', 'imatch', 'node'),
      fetch(`${s.url}/config.json`),
    ]);
    for (const r of [m, im]) {
      expect(r.status).toBe(400);
      expect(r.error?.code).toBe('PGRST100');
      expect(r.error?.details).toMatch(/need a signed-in user/);
    }
    expect(config.status).toBe(200);
    const inTree = await rest(s, `products?or=(name.eq.x,description.match.${encodeURIComponent(BACKTRACKING)})`);
    expect(inTree.status).toBe(400);
  });

  it('refuses, for everyone, the regular expressions that make PostgreSQL backtrack or blow up', async () => {
    const cases: [string, RegExp][] = [
      [BACKTRACKING, /backreferences/],
      ['(a)\\k<x>', /backreferences/],
      ['(.*){1,255}', /at most 20/],
      ['((.*){1,20}){1,20}', /quantified group/],
      ['((a+)+)+b', /quantified group/],
      ['(x+x+)+y', /quantified group/],
      ['a'.repeat(101), /at most 100 characters/],
    ];
    for (const [pattern, why] of cases) {
      const r = await user.from('products').select('id').filter('description', 'imatch', pattern);
      expect(r.status, pattern).toBe(400);
      expect(r.error?.code).toBe('PGRST100');
      expect(r.error?.details).toMatch(why);
    }
    // Ordinary expressions still work for a signed-in user, escaped backslashes included.
    const ok = await user.from('products').select('name').filter('name', 'imatch', '^(gala|playa)[a-z0-9 ]*\\\\?');
    expect(ok.error).toBeNull();
    expect(ok.status).toBe(200);
  });

  it('refuses oversized like patterns and in lists', async () => {
    const like = await s
      .client()
      .from('products')
      .select('id')
      .like('name', `%${'a%'.repeat(600)}`);
    expect(like.status).toBe(400);
    expect(like.error?.details).toMatch(/like patterns may be at most 1000/);
    const names = Array.from({ length: 1001 }, (_, i) => String(i));
    const r = await s.client().from('products').select('id').in('name', names);
    expect(r.status).toBe(400);
    expect(r.error?.details).toMatch(/in lists may hold at most 1000/);
  });

  it('reads the catalogue once, not once per request, when many requests name unknown tables', async () => {
    const db = s.deps.db;
    const query = db.query.bind(db);
    let loads = 0;
    db.query = ((sql: string, ...rest: unknown[]) => {
      if (sql.includes('from pg_class c')) loads += 1;
      return (query as (...a: unknown[]) => unknown)(sql, ...rest);
    }) as typeof db.query;
    const started = performance.now();
    try {
      const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => s.client().from(`no_such_table_${i}`).select('*')));
      expect(answers.map((a) => a.error?.code)).toEqual(Array(50).fill('PGRST205'));
      const columns = await Promise.all(Array.from({ length: 20 }, (_, i) => s.client().from('products').select(`no_such_column_${i}`)));
      expect(columns.map((a) => a.status)).toEqual(Array(20).fill(400));
    } finally {
      db.query = query;
    }
    // One load for the burst, and at most one more per RELOAD_INTERVAL_MS for requests that arrived
    // while one ran: on a loaded machine the 70 requests take longer, never more loads per second.
    expect(loads).toBeLessThanOrEqual(1 + Math.ceil((performance.now() - started) / RELOAD_INTERVAL_MS));
  });
});

// PGlite runs one statement at a time on the server's own thread: there the filter refusals above
// bound each statement's cost; slots matter where statements run in parallel.
// (test/reliability/fair-share.test.ts checks the same fairness on both databases.)
const SLOTS_PER_CLIENT = 4;
describe.skipIf(TEST_DB === 'pglite')('REST limits the statements one client runs at once', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({ TRUST_PROXY: 'true', DATABASE_CLIENT_SLOTS: String(SLOTS_PER_CLIENT) });
    await s.deps.db.exec(`create function public.slow_read() returns int language sql stable as $$ select 1 from pg_sleep(6) $$`);
  });
  afterAll(() => s.stop());

  const from = (address: string) => ({ headers: { 'X-Forwarded-For': address } });

  it("refuses a client's requests beyond its slots with 429 and Retry-After, and serves other clients", async () => {
    // Signed in: the anon role's 3 s statement timeout would end the sleep before the slots' wait.
    const bearer = { Authorization: `Bearer ${await userToken(s, randomUUID())}` };
    const heavy = Array.from({ length: 2 * SLOTS_PER_CLIENT }, () =>
      rest(s, 'rpc/slow_read', { method: 'POST', body: '{}', headers: { ...from('203.0.113.7').headers, ...bearer } }),
    );
    // Another client's read, sent while the heavy ones hold their slots: their statements are
    // seen sleeping in PostgreSQL.
    await until(
      'the heavy reads to hold their slots',
      async () =>
        (await s.deps.db.query<{ n: number }>(`select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event = 'PgSleep'`))
          .rows[0]!.n >= SLOTS_PER_CLIENT,
      5_000,
    );
    const other = await rest(s, 'products?select=id', from('198.51.100.9'));
    expect(other.status).toBe(200);
    const answers = await Promise.all(heavy);
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses).toEqual([...Array(SLOTS_PER_CLIENT).fill(200), ...Array(SLOTS_PER_CLIENT).fill(429)]);
    const refused = answers.find((a) => a.status === 429)!;
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(((await refused.json()) as { code: string }).code).toBe('PGRST003');
  }, 30_000);
});
