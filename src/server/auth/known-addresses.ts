import type { Queryable } from '../db/database';
import type { AppDeps } from '../deps';
import { queueSecurityMail } from './security-mail';
import type { ClientInfo } from './sessions';

/**
 * Addresses a user has fully signed in from (auth.known_addresses): with the password when they
 * have no second factor, else with it. OWASP's lock-out guidance keeps such a trusted origin out of
 * the lock that strangers' failures put on an account, so they cannot lock its owner out.
 */
export async function isKnownAddress(db: Queryable, userId: string | null, ip: string): Promise<boolean> {
  // Asked for unknown e-mails too (userId null), so that both take the same work.
  const { rows } = await db.query<{ known: boolean }>(`select exists (select 1 from auth.known_addresses where user_id = $1 and ip = $2) as known`, [
    userId,
    ip,
  ]);
  return rows[0]!.known;
}

/**
 * Remembers the address of a sign-in that passed every factor the account has: after the second
 * factor (`secondFactor`), or after the password when the user has no verified factor. A password
 * alone proves too little for an account with a factor, so it leaves the address unknown.
 * An address new to an account that already knew others is a new device: its owner is mailed.
 */
export async function rememberAddress(
  deps: Pick<AppDeps, 'config' | 'mailer'>,
  tx: Queryable,
  userId: string,
  client: ClientInfo,
  opts: { secondFactor: boolean },
): Promise<void> {
  const { rows: before } = await tx.query<{ any_known: boolean; this_known: boolean }>(
    `select exists (select 1 from auth.known_addresses where user_id = $1) as any_known,
            exists (select 1 from auth.known_addresses where user_id = $1 and ip = $2) as this_known`,
    [userId, client.ip],
  );
  const { rowCount } = await tx.query(
    `insert into auth.known_addresses (user_id, ip) select $1, $2
      where $3 or not exists (select 1 from auth.mfa_factors where user_id = $1 and status = 'verified')
     on conflict (user_id, ip) do update set last_seen_at = now()`,
    [userId, client.ip, opts.secondFactor],
  );
  // The first address of an account (its sign-up) is no news to its owner.
  if (rowCount && before[0]!.any_known && !before[0]!.this_known) await queueSecurityMail(deps, tx, userId, 'new-device', client);
}
