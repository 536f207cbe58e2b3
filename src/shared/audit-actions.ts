/** The admin audit log's actions (private.admin_audit_log.action) in words, for the admin area's "Audit log" tab. */
export const AUDIT_ACTION_LABELS: Record<string, string> = {
  'credit.add': 'Credit added',
  'database.restore': 'Database restored from a backup',
  'mail.read': 'Mail read',
  'purchase.payment_mismatch': 'Payment did not match its order',
  'purchase.refund': 'Refund requested',
  'purchase.refund_failed': 'Refund refused by the provider',
  'role.admin.grant': 'Admin role granted',
  'role.admin.revoke': 'Admin role revoked',
  'role.dev_access.grant': 'Dev access granted',
  'role.dev_access.revoke': 'Dev access revoked',
  'service.retry_install': 'Installation retried',
  'service.restart': 'Node restarted',
  'service.start': 'Node started',
  'service.stop': 'Node stopped',
  'status.incident_open': 'Status incident opened',
  'status.incident_update': 'Status update posted',
  'user.create': 'User created',
  'user.delete': 'User deleted',
  'user.password_reset_link': 'Password reset link created',
  'user.reactivate': 'User reactivated',
  'user.suspend': 'User suspended',
};

/** An action in words; one this list does not know yet shows as it is stored. */
export function auditActionLabel(action: string): string {
  return Object.hasOwn(AUDIT_ACTION_LABELS, action) ? AUDIT_ACTION_LABELS[action]! : action;
}

/** Rows per page in the audit log, the contact messages and the mail outbox. */
export const ADMIN_PAGE_SIZE = 50;
