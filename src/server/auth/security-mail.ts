import type { Queryable } from '../db/database';
import type { AppDeps } from '../deps';
import { securityAlertMail, type SecurityEvent } from '../mail/templates/security-alert';
import type { ClientInfo } from './sessions';

/**
 * Queues the security e-mail for `event` to the user, on `q` (pass the transaction that makes the
 * change, so the mail goes out exactly when the change is written). Links come from PUBLIC_URL.
 */
export async function queueSecurityMail(
  deps: Pick<AppDeps, 'config' | 'mailer'>,
  q: Queryable,
  userId: string,
  event: SecurityEvent,
  client: ClientInfo,
): Promise<void> {
  const { rows } = await q.query<{ email: string | null }>(`select email from auth.users where id = $1`, [userId]);
  const to = rows[0]?.email;
  if (!to) return;
  const base = deps.config.publicUrl;
  const mail = securityAlertMail({
    to,
    event,
    at: new Date(),
    ip: client.ip,
    userAgent: client.userAgent,
    resetUrl: `${base}/reset-password`,
    contactUrl: `${base}/contact`,
  });
  await deps.mailer.queue(q, mail);
}
