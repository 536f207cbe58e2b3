import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_DB } from '../helpers/database';
import { startTestServer, type TestServer } from '../helpers/server';
import { createTestUser, GALA_KEY, TOWN_STAR, type TestUser } from '../helpers/users';

/**
 * One locked row must not stall everyone (issue 18, item 1): while another session holds a user's
 * user_credits row, that user's calls that need it are answered with a retryable refusal, and
 * another user is served. PGlite has one session, in which no other can hold a row, so this
 * runs on PostgreSQL only.
 */
describe.skipIf(TEST_DB === 'pglite')('a row held by another session', () => {
  let s: TestServer;
  let owner: TestUser;
  let other: TestUser;
  beforeAll(async () => {
    s = await startTestServer({ RATE_LIMITS_ENABLED: 'false' });
    owner = await createTestUser(s, { credits: 1000 });
    other = await createTestUser(s, { credits: 5 });
  });
  afterAll(() => s.stop());

  const create = (i: number) =>
    fetch(`${s.url}/rest/v1/rpc/create_service_securely`, {
      method: 'POST',
      headers: { apikey: s.anonKey, Authorization: `Bearer ${owner.token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ p_name: `held${i}`, p_description: null, p_api_key: GALA_KEY, p_product_id: TOWN_STAR }),
    });

  it("answers the holder's victim 409, 429 or 503 with Retry-After before the lock is released, and serves another user", async () => {
    const holder = new pg.Client({ connectionString: s.databaseUrl });
    await holder.connect();
    try {
      await holder.query('begin');
      await holder.query('select 1 from public.user_credits where user_id = $1 for update', [owner.id]);
      const calls = Array.from({ length: 40 }, (_, i) => create(i));
      const read = await other.client.from('user_credits').select('balance');
      expect(read.error).toBeNull();
      expect(read.data).toEqual([{ balance: 5 }]);

      // All are answered while the row is still held.
      const answers = await Promise.all(calls);
      const statuses = answers.map((a) => a.status);
      expect(statuses.filter((st) => ![409, 429, 503].includes(st))).toEqual([]);
      for (const a of answers) expect(Number(a.headers.get('retry-after'))).toBeGreaterThan(0);
      const blocked = answers.find((a) => a.status === 409)!;
      expect(await blocked.json()).toMatchObject({ code: '55P03', details: null });
    } finally {
      await holder.query('rollback');
      await holder.end();
    }
    // Released: the owner's call goes through.
    expect((await create(100)).status).toBe(200);
  });
});
