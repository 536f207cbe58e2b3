import { findUserByEmail, type UserRow } from '../auth/users';
import type { Queryable } from '../db/database';
import { CliError } from './cli-error';
import { required, type CliValues } from './command';

/** The user named by --email, or a clear error. */
export async function userFromArgs(db: Queryable, values: CliValues): Promise<UserRow> {
  const email = required(values, 'email');
  const user = await findUserByEmail(db, email.toLowerCase());
  if (!user) throw new CliError(`No user with the e-mail ${email}`);
  return user;
}

/** --amount as dollars with at most two decimals, above zero. */
export function amountArg(raw: string, name = 'amount'): number {
  const n = Number(raw);
  if (!/^\d+(\.\d{1,2})?$/.test(raw.trim()) || !(n > 0)) {
    throw new CliError(`--${name} must be a positive amount of dollars, like 25 or 9.99 (got "${raw}")`);
  }
  return n;
}
