/**
 * What a node uses (issue 36, item 2; migration 0049): the ranges the service page shows (the
 * minutes of the last 24 hours, the hours of the last 30 days, as private.record_node_usage keeps
 * them), and how their values read.
 */

/** What public.service_usage's p_range takes. */
export const USAGE_RANGES = ['24h', '30d'] as const;
export type UsageRange = (typeof USAGE_RANGES)[number];
export const USAGE_RANGE_LABELS: Record<UsageRange, string> = { '24h': 'Last 24 hours', '30d': 'Last 30 days' };

export const NO_USAGE_YET = 'No usage data yet';

const UNITS = ['B', 'KB', 'MB', 'GB'] as const;

/** A rate in bytes per second as a person reads it: "0 B/s", "12.3 KB/s", "4.5 MB/s" (powers of 1000). */
export function bytesPerSecondText(bytes: number): string {
  let value = Math.max(0, bytes);
  let unit = 0;
  while (value >= 1000 && unit < UNITS.length - 1) {
    value /= 1000;
    unit++;
  }
  const digits = unit === 0 || value >= 100 ? 0 : 1;
  return `${value.toFixed(digits)} ${UNITS[unit]}/s`;
}

/** Memory in MiB: "512 MiB", "1.5 GiB" from 1024 MiB up. */
export function mebibytesText(mib: number): string {
  const v = Math.max(0, mib);
  if (v >= 1024) return `${(v / 1024).toFixed(v >= 10 * 1024 ? 0 : 1)} GiB`;
  return `${v.toFixed(v >= 10 ? 0 : 1)} MiB`;
}

/** A CPU share: "12.5%", "0.3%", "100%". */
export function percentText(p: number): string {
  const v = Math.max(0, p);
  return `${v.toFixed(v >= 10 ? 0 : 1)}%`;
}
