import type { ServiceState } from '@shared/constants';
import type { Service } from './api/types';

export type DisplayStatus = 'deleting' | 'installing' | 'failed' | 'active' | 'suspended' | 'expired';

/**
 * What each state shows. A deleted service (not listed, but a late answer may carry one) shows as
 * deleting: it is on its way to trash.
 */
const STATUS_OF_STATE: Record<ServiceState, DisplayStatus> = {
  installing: 'installing',
  active: 'active',
  failed: 'failed',
  suspended: 'suspended',
  expired: 'expired',
  deleting: 'deleting',
  deleted: 'deleting',
};

/**
 * From the state when the server sends a known one; otherwise from the booleans of spec §4:
 * deleting wins, then installing, then active or expired (the booleans show a suspension as expired).
 */
export function displayStatus(s: Pick<Service, 'state' | 'is_deleting' | 'is_installed' | 'expired'>): DisplayStatus {
  if (s.state && Object.hasOwn(STATUS_OF_STATE, s.state)) return STATUS_OF_STATE[s.state];
  if (s.is_deleting) return 'deleting';
  if (!s.is_installed) return 'installing';
  return s.expired ? 'expired' : 'active';
}

/** The server is moving it along (installing, deleting): the list polls until it settles. */
export const isChanging = (status: DisplayStatus): boolean => status === 'installing' || status === 'deleting';

/** Why Extend or Delete is disabled right now, or null when it is not (spec §4 tooltips). */
export function blockedReason(status: DisplayStatus, action: 'extend' | 'delete'): string | null {
  if (status === 'deleting') return 'Service is currently being deleted...';
  if (status === 'installing') return `Cannot ${action}, service is currently installing...`;
  // Its paid period has not started: there is nothing to extend (extend_service_expiration says the same).
  if (status === 'failed' && action === 'extend') return 'Cannot extend, installation failed';
  return null;
}

/**
 * Whether the owner can turn automatic renewal on or off now: while a period lies ahead (installing,
 * failed, active). An expired or suspended service comes back through Extend or a top-up instead.
 */
export const canSetAutoRenew = (status: DisplayStatus): boolean => status === 'active' || status === 'installing' || status === 'failed';

/** Said wherever an order is paid for: the create dialog, the status guide and the home page's FAQ. */
export const PAID_FROM_FIRST_RUN = 'The paid period starts when your node first runs, so a failed installation costs nothing.';

/** Whether a service id from the address bar can be one at all: anything else is not found without asking (the server would refuse it). */
export const isServiceId = (id: string): boolean => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id);

/** Dots shown for the hidden part, whatever its length: their count must not tell the key's length. */
export const MASK_DOTS = 8;

/**
 * A key as shown hidden: a fixed run of dots and its last `visible` characters (counted as characters,
 * not code units). A key no longer than that tail shows dots only, so no key is ever shown whole.
 */
export function maskKey(key: string, visible: number): { dots: string; tail: string } {
  const chars = Array.from(key);
  return { dots: '•'.repeat(MASK_DOTS), tail: chars.length > visible ? chars.slice(-visible).join('') : '' };
}

/** "1 MONTH" → "month", "3 MONTH" → "3 months": a product's renewal interval in words. */
export function intervalLabel(renewInterval: string): string {
  const m = /^(\d+) ([A-Z]+?)S?$/.exec(renewInterval.trim().toUpperCase());
  if (!m) return renewInterval.toLowerCase();
  const unit = m[2]!.toLowerCase();
  return m[1] === '1' ? unit : `${m[1]} ${unit}s`;
}
