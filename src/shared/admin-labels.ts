import type { CONTACT_TOPICS, ServiceState } from './constants';

// Words for stored values the admin area shows as they are. Their own module, not constants.ts:
// what several chunks share lands in the entry every public page loads (bench:web).

export const CONTACT_TOPIC_LABELS: Record<(typeof CONTACT_TOPICS)[number], string> = { sales: 'Sales', support: 'Support' };

/** A service's state in words, where it is shown as it is (the admin's page of a user). */
export const SERVICE_STATE_LABELS: Record<ServiceState, string> = {
  installing: 'Installing',
  active: 'Active',
  failed: 'Installation failed',
  suspended: 'Suspended',
  expired: 'Expired',
  deleting: 'Deleting',
  deleted: 'Deleted',
};
