import type { Queryable } from '../db/database';
import type { AppDeps } from '../deps';
import { securityAlertMail, type SecurityEvent } from '../mail/templates/security-alert';
import { fromMail, notify } from '../notify/notify';
import type { ClientInfo } from './sessions';

/**
 * Queues the security e-mail for `event` to the user (always) and the notice to their channels that take it, on `q` (pass the transaction that makes the
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
  const url = `${base}/dashboard/settings/security`;
  await notify(q, deps, { userId, event: 'security_notice', mail, message: fromMail(mail, { kind: event }, url) });
}
