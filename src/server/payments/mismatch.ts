import type { PaymentMismatch } from '../../shared/payment-mismatch';
import type { Queryable } from '../db/database';
import { paymentMismatchMail } from '../mail/templates/payment-mismatch';
import type { AppDeps } from '../deps';

/**
 * A capture, refund or reversal the database refused to credit or debit (decision 031). `first`
 * only for the call that recorded it: its duplicates carry nothing more to tell.
 */
export type Mismatch = { outcome: 'mismatch'; purchase_id: string } & ({ first: false } | ({ first: true } & PaymentMismatch));

/**
 * Alerts every admin to a mismatch, in the transaction that recorded it: the audit entry and the
 * mails commit together, or neither does and the provider's next report records it again. One mail
 * per admin and mismatch, however often the provider reports it.
 */
export async function alertAdmins(deps: Pick<AppDeps, 'logger' | 'mailer'>, tx: Queryable, m: Mismatch): Promise<void> {
  if (!m.first) return;
  deps.logger.warn('payment did not match its order', { purchase_id: m.purchase_id, what: m.what, reference: m.reference, reported: m.reported });
  const { rows } = await tx.query<{ id: string; email: string }>(
    `select u.id, u.email from public.admin_users a join auth.users u on u.id = a.user_id
      where u.deleted_at is null and u.email is not null order by u.email`,
  );
  if (rows.length === 0) deps.logger.error('no admin to alert of a payment that did not match its order', { purchase_id: m.purchase_id });
  for (const admin of rows) {
    await deps.mailer.queue(tx, paymentMismatchMail(admin.email, m), { key: `payment-mismatch:${m.what}:${m.reference}:${admin.id}` });
  }
}
