import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import type { Database, Queryable } from '../../src/server/db/database';

/**
 * Design §2's invariant: every user's balance equals the sum of their ledger. Fails naming each
 * user whose balance does not (a ledger without a balance row too: no account is ever removed, only closed). Called after
 * every test that moves money.
 */
export async function expectLedgerBalanced(db: Queryable): Promise<void> {
  const { rows } = await db.query<{ user_id: string; balance: string | null; ledger: string }>(
    `select coalesce(c.user_id, t.user_id) as user_id, c.balance::text as balance, coalesce(t.total, 0)::text as ledger
       from public.user_credits c
       full join (select user_id, sum(amount) as total from public.credit_transactions group by user_id) t on t.user_id = c.user_id
      where c.balance is distinct from coalesce(t.total, 0)
      order by 1`,
  );
  expect(rows, 'users whose balance is not the sum of their ledger').toEqual([]);
}

/**
 * Ledger rows dated in the past, with the balance moved by the same amounts in the same
 * transaction: the SQL functions date a row now(), and the ledger refuses an update.
 */
export async function postDated(db: Database, userId: string, rows: { type: string; amount: number; description: string; at: string }[]): Promise<void> {
  await db.transaction(async (tx) => {
    for (const r of rows) {
      await tx.query(
        `insert into public.credit_transactions (user_id, type, description, amount, idempotency_key, created_at) values ($1, $2, $3, $4, $5, $6)`,
        [userId, r.type, r.description, r.amount, `test-dated:${randomUUID()}`, r.at],
      );
      await tx.query('update public.user_credits set balance = balance + $2 where user_id = $1', [userId, r.amount]);
    }
  });
}
