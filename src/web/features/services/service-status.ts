import type { Service } from './api/types';

export type DisplayStatus = 'deleting' | 'installing' | 'active' | 'expired';

/** Spec §4: deleting wins, then installing, then active or expired. */
export function displayStatus(s: Pick<Service, 'is_deleting' | 'is_installed' | 'expired'>): DisplayStatus {
  if (s.is_deleting) return 'deleting';
  if (!s.is_installed) return 'installing';
  return s.expired ? 'expired' : 'active';
}

/** Why Extend or Delete is disabled right now, or null when it is not (spec §4 tooltips). */
export function blockedReason(status: DisplayStatus, action: 'extend' | 'delete'): string | null {
  if (status === 'deleting') return 'Service is currently being deleted...';
  if (status === 'installing') return `Cannot ${action}, service is currently installing...`;
  return null;
}

/** The last 4 characters, the rest hidden. */
export function maskKey(key: string, visible: number): string {
  const chars = Array.from(key);
  return '•'.repeat(Math.max(chars.length - visible, 0)) + chars.slice(-visible).join('');
}

/** "1 MONTH" → "month", "3 MONTH" → "3 months": a product's renewal interval in words. */
export function intervalLabel(renewInterval: string): string {
  const m = /^(\d+) ([A-Z]+?)S?$/.exec(renewInterval.trim().toUpperCase());
  if (!m) return renewInterval.toLowerCase();
  const unit = m[2]!.toLowerCase();
  return m[1] === '1' ? unit : `${m[1]} ${unit}s`;
}
