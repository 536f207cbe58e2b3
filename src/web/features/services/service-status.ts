import type { ServiceState } from '@shared/constants';
import type { Product, Service } from './api/types';

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
export const PAID_FROM_FIRST_RUN =
  'The paid period starts when your node first runs, and a failed installation costs nothing: its charge comes back to your balance at once.';

/** What came back to the balance when the installation failed (migration 0050), or null when it was not charged. */
export function installRefund(s: Pick<Service, 'install_refund'>): number | null {
  const n = Number(s.install_refund ?? Number.NaN);
  return Number.isFinite(n) && n > 0 ? n : null;
}

/**
 * What the owner's Retry charges, confirmed in its dialog: the plan's price when the failure gave the
 * charge back; undefined when the retry is free (a reused purchased service, a free plan).
 */
export function retryCharge(s: Pick<Service, 'install_refund' | 'user_id'>, product: Pick<Product, 'price'> | null | undefined) {
  return installRefund(s) !== null && product && product.price > 0 ? { price: product.price, userId: s.user_id } : undefined;
}

/** A service as a suspension's renewal sees it: when it ends unpaid, and what renewing it costs (undefined: not known here). */
type Suspended = Pick<Service, 'id' | 'state' | 'terminates_at'> & { price: number | undefined };

// When a suspension ends, in ms: the resumption's order (a suspended service always has the date, migration 0028).
const ends = (s: Pick<Service, 'terminates_at'>) => (s.terminates_at ? Date.parse(s.terminates_at) : Number.NaN) || 0;

/**
 * What the balance lacks for the suspended service `id` to be renewed by a top-up: the job a credit
 * queues (resume-services) renews the suspended services nearest their termination first, so those
 * before this one are paid for first. Null when the balance already covers it (its renewal is on its
 * way) or it is not suspended.
 */
export function renewalShortfall(id: string, services: Suspended[], balance: number): number | null {
  const queue = services.filter((s) => s.state === 'suspended').sort((a, b) => ends(a) - ends(b) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  const at = queue.findIndex((s) => s.id === id);
  if (at === -1) return null;
  const needed = queue.slice(0, at + 1).reduce((sum, s) => sum + (s.price ?? 0), 0);
  return needed > balance ? needed - balance : null;
}

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
