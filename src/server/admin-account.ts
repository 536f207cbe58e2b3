import { randomBytes } from 'node:crypto';
import { createUser, findUserByEmail } from './auth/users';
import type { Database } from './db/database';
import { grantAdmin } from './domain/roles';

const FLAG = 'admin_account_created';

/**
 * On the very first start, creates the admin account (ADMIN_EMAIL) with a random password and
 * returns the credentials, to be printed once. Later starts return null, even if the admin was
 * renamed or revoked since: the flag records that the account was handed over.
 */
export async function ensureAdminAccount(db: Database, email: string): Promise<{ email: string; password: string | null } | null> {
  return db.transaction(async (tx) => {
    // Several processes may start together on one PostgreSQL: one of them creates the account.
    await tx.query('select pg_advisory_xact_lock(7262002)');
    const done = await tx.query(`select 1 from nodeharbor.settings where key = $1`, [FLAG]);
    if (done.rowCount > 0) return null;
    await tx.query(`insert into nodeharbor.settings (key, value) values ($1, now()::text)`, [FLAG]);
    const existing = await findUserByEmail(tx, email);
    if (existing) {
      // Created beforehand (e.g. with the CLI): it keeps its own password.
      await grantAdmin(tx, existing.id);
      return { email, password: null };
    }
    const password = randomBytes(12).toString('base64url');
    const user = await createUser(tx, { email, password, fullName: 'Administrator' });
    await grantAdmin(tx, user.id);
    return { email, password };
  });
}

/** The one place the admin password is ever shown. */
export function adminAccountBanner(account: { email: string; password: string | null }): string {
  const line = '='.repeat(64);
  const body =
    account.password === null
      ? [`  ${account.email} already existed and is now an admin.`]
      : ['  NodeHarbor admin account created. It is shown once: keep it.', `  e-mail:   ${account.email}`, `  password: ${account.password}`];
  return [line, ...body, line].join('\n');
}
