import { randomUUID } from 'node:crypto';
import type { Database, Queryable } from '../db/database';

/** numeric(12,2) holds up to 9 999 999 999.99. */
const MAX_CENTS = 1e12;

/**
 * Adds credit from the server side (the CLI, an admin): one `admin_credit` ledger row and the
 * balance with it, and its audit entry naming `actor`, in one transaction. Returns the new balance
 * as text (numeric(12,2)).
 */
export function addCredits(db: Database, userId: string, amount: number, note: string, actor = 'server'): Promise<string> {
  return db.transaction((tx) => addCreditsIn(tx, userId, amount, note, actor));
}

/**
 * addCredits inside a transaction the caller holds (with the user it creates, say). The audit entry
 * names the request's admin when `tx` has claims set, else `actor`.
 */
export async function addCreditsIn(tx: Queryable, userId: string, amount: number, note: string, actor = 'server'): Promise<string> {
  // Cents are compared with a tolerance: 19.99 * 100 is 1998.9999999999998 in floating point.
  const cents = Math.round(amount * 100);
  if (!Number.isFinite(amount) || cents <= 0 || Math.abs(amount * 100 - cents) > 1e-6 || cents >= MAX_CENTS) {
    throw new Error('The amount must be a positive number of dollars with at most two decimals, below $10,000,000,000');
  }
  const locked = await tx.query<{ balance: string; email: string }>(
    'select c.balance, u.email from public.user_credits c join auth.users u on u.id = c.user_id where c.user_id = $1 and u.deleted_at is null for update of c',
    [userId],
  );
  const before = locked.rows[0];
  if (!before) throw new Error('No such user');
  await tx.query(`select private.post_transaction($1, $2, 'admin_credit', $3, null, $4)`, [
    userId,
    (cents / 100).toFixed(2),
    note,
    `admin-credit:${randomUUID()}`,
  ]);
  const { rows } = await tx.query<{ balance: string }>('select balance from public.user_credits where user_id = $1', [userId]);
  const balance = rows[0]!.balance;
  await tx.query(`select private.record_admin_action('credit.add', 'user', $1, $2, $3, $4, $5)`, [
    userId,
    before.email,
    { balance: before.balance },
    { balance, amount: (cents / 100).toFixed(2), note },
    actor,
  ]);
  return balance;
}
