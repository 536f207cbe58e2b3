import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { createUser } from '../../src/server/auth/users';
import { addCredits } from '../../src/server/domain/credits';
import { createTestDatabase, type TestDatabase } from '../helpers/database';
import { expectLedgerBalanced } from '../helpers/ledger';

let t: TestDatabase;
let userId: string;
beforeAll(async () => {
  t = await createTestDatabase();
  userId = (await createUser(t.db, { email: 'credit@nodeharbor.test', password: 'correct-horse-battery' })).id;
});
// Money moves here: every balance stays its ledger's sum.
afterEach(() => expectLedgerBalanced(t.db));
afterAll(async () => {
  await t.db.close();
  await t.drop();
});

it('adds amounts that floating point cannot hold exactly, and records each in the ledger', async () => {
  expect(await addCredits(t.db, userId, 0.29, 'a')).toBe('0.29');
  expect(await addCredits(t.db, userId, 19.99, 'b')).toBe('20.28');
  const { rows } = await t.db.query<{ sum: string; n: number }>(
    `select sum(amount)::text as sum, count(*)::int as n from public.credit_transactions where user_id = $1 and type = 'admin_credit'`,
    [userId],
  );
  expect(rows[0]).toEqual({ sum: '20.28', n: 2 });
});

it.each([0, -5, 0.001, Number.NaN, 1e10])('refuses %s and changes nothing', async (amount) => {
  await expect(addCredits(t.db, userId, amount, 'bad')).rejects.toThrow('The amount must be a positive number of dollars');
  const { rows } = await t.db.query<{ balance: string }>('select balance from public.user_credits where user_id = $1', [userId]);
  expect(rows[0]!.balance).toBe('20.28');
});

it('refuses an unknown user', async () => {
  await expect(addCredits(t.db, '00000000-0000-4000-8000-0000000000aa', 5, 'x')).rejects.toThrow('No such user');
});
