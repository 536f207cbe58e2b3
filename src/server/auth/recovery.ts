import type { AppDeps } from '../deps';
import type { Config } from '../env';
import { passwordRecoveryMail } from '../mail/templates/password-recovery';
import { hashToken, randomToken } from './sessions';
import { findUserByEmail } from './users';

/** How long a recovery link works. */
const RECOVERY_TTL_SECONDS = 3600;

const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * GoTrue's redirect check (IsRedirectURLValid): a redirect must share scheme and host with the
 * public URL (any port when that host is local), otherwise the reset page of the public URL is
 * used, so a link can never send a token to someone else's site. A fragment is dropped.
 */
export function safeRedirect(config: Pick<Config, 'publicUrl'>, raw: string | undefined): string {
  const fallback = `${config.publicUrl}/reset-password-confirm`;
  if (!raw) return fallback;
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return fallback;
  }
  const base = new URL(config.publicUrl);
  if (u.username || u.password || u.protocol !== base.protocol) return fallback;
  const sameHost = u.host === base.host || (LOCAL_HOSTS.has(base.hostname) && u.hostname === base.hostname);
  if (!sameHost) return fallback;
  u.hash = '';
  return u.toString();
}

/**
 * Starts a password recovery. For a known, live address a one-hour one-time token is stored
 * (as a hash only, replacing any earlier one) and the link mailed; for an unknown address
 * nothing happens, and the caller answers the same either way. The mail is queued with the token
 * in one transaction and delivered by a send-email job, so the answer never waits on the relay:
 * its time no longer tells whether the account exists.
 */
export async function requestRecovery(deps: AppDeps, email: string, redirectTo: string): Promise<void> {
  const user = await findUserByEmail(deps.db, email);
  if (!user || !user.email) return;
  const token = randomToken();
  const link = `${deps.config.publicUrl}/auth/v1/verify?${new URLSearchParams({ token, type: 'recovery', redirect_to: redirectTo })}`;
  const mail = passwordRecoveryMail({ to: user.email, link });
  await deps.db.transaction(async (tx) => {
    await tx.query(`update auth.users set recovery_token = $2, recovery_sent_at = now(), updated_at = now() where id = $1`, [
      user.id,
      hashToken(token),
    ]);
    await deps.mailer.queue(tx, mail);
  });
}

/**
 * Redeems a recovery token once: clears it, confirms the address (the mail reached its owner)
 * and returns the user's id, or null when the token is unknown, used, expired or the user banned.
 */
export async function redeemRecoveryToken(deps: AppDeps, token: string): Promise<string | null> {
  const { rows } = await deps.db.query<{ id: string }>(
    `update auth.users
        set recovery_token = null,
            email_confirmed_at = coalesce(email_confirmed_at, now()),
            updated_at = now()
      where recovery_token = $1
        and recovery_sent_at > now() - make_interval(secs => $2)
        and deleted_at is null
        and (banned_until is null or banned_until < now())
      returning id`,
    [hashToken(token), RECOVERY_TTL_SECONDS],
  );
  return rows[0]?.id ?? null;
}
