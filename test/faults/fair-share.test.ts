import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_DB } from '../helpers/database';
import { startTestServer, type TestServer } from '../helpers/server';
import { createTestUser, type TestUser } from '../helpers/users';

const run = promisify(execFile);

type Outcome = { answeredBefore: number; otherStatus: number; burst: { status: number; retryAfter: string | null; code?: string }[] };

/**
 * One user's burst takes only that user's share of the database (issue 18, item 1), on PGlite,
 * which runs one statement at a time, as on PostgreSQL's pool. Both users call from the same
 * address, so it is the signed-in user that is counted, not the address. The requests come from
 * a process of their own (helpers/burst-client.mjs), as a browser's would: sent from the test's
 * process, they would wait for the event loop that PGlite blocks, and arrive in turn. On PGlite
 * every turn of that loop runs one statement, so the other request, which needs a few turns to be
 * read and run, waits some statements' time whatever the burst; before, it waited for all of it.
 */
describe("one user's burst", () => {
  let s: TestServer;
  let busy: TestUser;
  let other: TestUser;
  beforeAll(async () => {
    s = await startTestServer({ RATE_LIMITS_ENABLED: 'false' });
    // Work that takes the database a while (some 100 ms a call on either), as a heavy call of the app's would.
    const rows = TEST_DB === 'pglite' ? 200_000 : 1_000_000;
    await s.deps.db.exec(`create function public.busy_work() returns bigint language sql volatile as $$ select count(*) from generate_series(1, ${rows}) $$`);
    busy = await createTestUser(s);
    other = await createTestUser(s, { credits: 5 });
  });
  afterAll(() => s.stop());

  it("does not keep another user's request waiting behind it; the excess waits or gets 429 with Retry-After", async () => {
    const as = (token: string) => ({ apikey: s.anonKey, Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' });
    const plan = {
      count: 40,
      burst: { url: `${s.url}/rest/v1/rpc/busy_work`, method: 'POST', headers: as(busy.token), body: '{}' },
      other: { url: `${s.url}/rest/v1/user_credits?select=balance`, method: 'GET', headers: as(other.token) },
    };
    const { stdout } = await run(process.execPath, ['test/helpers/burst-client.mjs', JSON.stringify(plan)]);
    const outcome = JSON.parse(stdout) as Outcome;

    expect(outcome.otherStatus).toBe(200);
    // Served in turn with the burst, not after it: most of the burst was still waiting.
    expect(outcome.answeredBefore).toBeLessThan(20);
    for (const a of outcome.burst) {
      expect([200, 429]).toContain(a.status);
      if (a.status === 429) expect(a).toEqual({ status: 429, retryAfter: '1', code: 'PGRST003' });
    }
  });
});
