import { ADDRESS_LINK_MINUTES, ADDRESS_LINK_PARAM } from '../../shared/constants';
import type { AppDeps } from '../deps';
import { newAddressLinkMail, passwordGuessingMail } from '../mail/templates/new-address';
import { AUTH_LIMITS, failureLimitWait, withinLimit } from './rate-limits';
import { type ClientInfo, hashToken, randomToken } from './sessions';
import type { UserRow } from './users';

/**
 * The way through the lock that failed sign-ins put on an account for the addresses it has not
 * signed in from (nodeharbor.address_links, migration 0036). The right password from such an
 * address, while locked, e-mails the owner a link; opened from that address within
 * ADDRESS_LINK_MINUTES, it signs them in once and the address becomes known. A guesser without
 * the mailbox gets nothing from the right password, and the owner hears of it.
 */

/** Whether the user may be sent a link at all: a live, confirmed account with an address. */
function mayGetLink(user: UserRow): user is UserRow & { email: string } {
  return !!user.email && !!user.email_confirmed_at && !user.deleted_at && !(user.banned_until && user.banned_until > new Date());
}

/**
 * Mails `user` a link that lets `client.ip` in, with the news that someone is guessing. Called only
 * after their right password came from that address; at most AUTH_LIMITS.addressLinkPerEmail an
 * hour, beyond which nothing is sent and nothing is said (the answer must not tell the password was right).
 */
export async function offerAddressLink(deps: AppDeps, user: UserRow, client: ClientInfo): Promise<void> {
  if (!mayGetLink(user) || !(await withinLimit(deps, 'addressLinkPerEmail', user.email))) return;
  const token = randomToken();
  const base = deps.config.publicUrl;
  const mail = newAddressLinkMail({
    to: user.email,
    // In the fragment: a browser never sends it, so no log or Referer holds the token.
    link: `${base}/login#${new URLSearchParams({ [ADDRESS_LINK_PARAM]: token })}`,
    minutes: ADDRESS_LINK_MINUTES,
    at: new Date(),
    ip: client.ip,
    userAgent: client.userAgent,
    resetUrl: `${base}/reset-password`,
    contactUrl: `${base}/contact`,
  });
  // The link exists exactly when its mail does.
  await deps.db.transaction(async (tx) => {
    await tx.query(`insert into nodeharbor.address_links (token_hash, user_id, ip, expires_at) values ($1, $2, $3, now() + make_interval(mins => $4))`, [
      hashToken(token),
      user.id,
      client.ip,
      ADDRESS_LINK_MINUTES,
    ]);
    await deps.mailer.queue(tx, mail);
  });
}

/**
 * Spends a link: the user's id when `token` is a live link made for `client.ip`, else null. The
 * link is deleted as it is used, so it works once even when opened twice at the same moment; one
 * opened from another address is left for its own (a mail scanner's visit does not spend it).
 */
export async function redeemAddressLink(deps: AppDeps, token: string, client: ClientInfo): Promise<string | null> {
  const { rows } = await deps.db.query<{ user_id: string }>(
    `delete from nodeharbor.address_links l using auth.users u
      where l.token_hash = $1 and l.ip = $2 and l.expires_at > now()
        and u.id = l.user_id and u.deleted_at is null and coalesce(u.banned_until <= now(), true)
      returning l.user_id`,
    [hashToken(token), client.ip],
  );
  return rows[0]?.user_id ?? null;
}

/**
 * After a failed sign-in from a new address: when it was the failure that locked the account,
 * warns the owner that someone is guessing, at most once a day. E-mails without an account take
 * the same steps and are sent nothing.
 */
export async function warnIfLocked(deps: AppDeps, email: string, user: UserRow | null, client: ClientInfo): Promise<void> {
  if ((await failureLimitWait(deps, { name: 'passwordFailuresPerEmail', subject: email })) === 0) return;
  if (!(await withinLimit(deps, 'guessingWarningPerEmail', email)) || !user || !mayGetLink(user)) return;
  const { max, windowSeconds } = AUTH_LIMITS.passwordFailuresPerEmail;
  const mail = passwordGuessingMail({
    to: user.email,
    failures: max,
    minutes: windowSeconds / 60,
    at: new Date(),
    ip: client.ip,
    userAgent: client.userAgent,
    resetUrl: `${deps.config.publicUrl}/reset-password`,
  });
  await deps.mailer.queue(deps.db, mail);
}
