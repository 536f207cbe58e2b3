import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { Database } from '../db/database';
import type { AppDeps } from '../deps';
import type { Config } from '../env';
import { enqueue } from '../jobs/queue';
import type { Mailer } from '../mail/mailer';
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
 * What a send-recovery job is given: the address as typed, and where its link leads. An admin's
 * request (admin_send_password_reset, in SQL) names no links: the site's own are used.
 */
export const recoveryJob = z.object({
  email: z.string(),
  redirectTo: z.string().optional(),
  verifyUrl: z.string().optional(),
  /** One request, one mail: a job run again after a crash sends nothing twice. */
  requestId: z.string().uuid(),
});
export type RecoveryJob = z.infer<typeof recoveryJob>;

/**
 * Starts a password recovery: enqueues a send-recovery job, and nothing else, whether or not the
 * address has an account. The request then does the same work either way, so neither its answer
 * nor its time tells who has an account; the job finds out, later, away from the request.
 */
export async function requestRecovery(deps: AppDeps, email: string, redirectTo: string): Promise<void> {
  const job: RecoveryJob = { email, redirectTo, verifyUrl: `${deps.config.publicUrl}/auth/v1/verify`, requestId: randomUUID() };
  await enqueue(deps.db, 'send-recovery', job);
}

/**
 * The send-recovery job. For a known, live address a one-hour one-time token is stored (as a hash
 * only, replacing any earlier one) and the link queued for mailing, in one transaction; for an
 * unknown address nothing happens.
 */
export async function mailRecoveryLink(deps: { db: Database; mailer: Mailer; publicUrl: string }, job: RecoveryJob): Promise<void> {
  const user = await findUserByEmail(deps.db, job.email);
  if (!user || !user.email) return;
  const token = randomToken();
  const verifyUrl = job.verifyUrl ?? `${deps.publicUrl}/auth/v1/verify`;
  const redirectTo = job.redirectTo ?? safeRedirect({ publicUrl: deps.publicUrl }, undefined);
  const link = `${verifyUrl}?${new URLSearchParams({ token, type: 'recovery', redirect_to: redirectTo })}`;
  const mail = passwordRecoveryMail({ to: user.email, link });
  await deps.db.transaction(async (tx) => {
    // Already mailed by an earlier run of this job: that mail's token must stay the valid one.
    if ((await deps.mailer.queue(tx, mail, { key: `recovery:${job.requestId}` })) === null) return;
    await tx.query(`update auth.users set recovery_token = $2, recovery_sent_at = now(), updated_at = now() where id = $1`, [user.id, hashToken(token)]);
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
