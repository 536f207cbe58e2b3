import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { messages } from '../../src/shared/validation';
import { startTestServer, type TestServer } from '../helpers/server';
import { createTestUser, GALA_KEY, TOWN_STAR } from '../helpers/users';
import { expectLedgerBalanced } from '../helpers/ledger';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer({ RATE_LIMITS_ENABLED: 'false' });
});
// Money moves here: every balance stays its ledger's sum.
afterEach(() => expectLedgerBalanced(s.deps.db));
afterAll(() => s.stop());

it('50 concurrent creations by a user whose balance covers 3 make exactly 3 services', async () => {
  const u = await createTestUser(s, { credits: 30 });
  // Sample the balance while the creations run: it must never be seen below zero.
  let lowest = Infinity;
  let racing = true;
  const watcher = (async () => {
    while (racing) {
      const { rows } = await s.deps.db.query<{ balance: string }>('select balance from public.user_credits where user_id = $1', [u.id]);
      lowest = Math.min(lowest, Number(rows[0]!.balance));
      // PGlite answers in microtasks: yield a turn of the event loop, or this loop starves the server sharing the process.
      await new Promise((r) => setImmediate(r));
    }
  })();
  const results = await Promise.all(
    Array.from({ length: 50 }, (_, i) =>
      u.client.rpc('create_service_securely', { p_name: `race-${i}`, p_description: null, p_api_key: GALA_KEY, p_product_id: TOWN_STAR }),
    ),
  );
  racing = false;
  await watcher;

  expect(results.filter((r) => r.error === null)).toHaveLength(3);
  for (const r of results.filter((x) => x.error)) expect(r.error!.message).toBe(messages.insufficientFunds);
  expect(lowest).toBeGreaterThanOrEqual(0);
  const { rows } = await s.deps.db.query<{ services: number; balance: string; ledger: string }>(
    `select (select count(*)::int from private.services where user_id = $1) as services,
            (select balance from public.user_credits where user_id = $1) as balance,
            (select sum(amount) from public.credit_transactions where user_id = $1) as ledger`,
    [u.id],
  );
  expect(rows[0]).toEqual({ services: 3, balance: '0.00', ledger: '0.00' });
});
