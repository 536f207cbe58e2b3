import { NODE_STATE_LABELS, type FleetState } from '@shared/node-health';
import { Badge } from '@/components/ui/badge';
import type { Formatters } from '@/lib/format';

// Data-free, so it sits in the shared layer: the services feature (cards, service page) and the
// admin feature (fleet) both show it, and features never import each other.
const VARIANT = {
  online: 'success',
  offline: 'destructive',
  restarting: 'warning',
  stopped: 'secondary',
  unknown: 'outline',
  installing: 'warning',
  failed: 'destructive',
  deleting: 'destructive',
} as const satisfies Record<FleetState, string>;

/** A node's state as the monitor last saw it (or, in the fleet, a service's own state when it has no node). */
export function NodeStateBadge({ state }: { state: FleetState }) {
  return <Badge variant={VARIANT[state]}>{NODE_STATE_LABELS[state]}</Badge>;
}

/** "just now" or "5 minutes ago": a sample of the last minute would otherwise read "0 minutes ago". */
export function seenAgo(f: Formatters, iso: string, now = Date.now()): string {
  return Math.abs(now - new Date(iso).getTime()) < 60_000 ? 'just now' : f.relative(iso, now);
}
