/**
 * How a customer's node is doing, as the node monitor last saw it (issue 16), and what the
 * dashboard, the admin's fleet view and the alert e-mails say of it. One place for the texts.
 */

/** A node's state: running (online), not running though it should (offline, restarting), stopped on purpose (expired), or not known (no recent sample). */
export const NODE_STATES = ['online', 'offline', 'restarting', 'stopped', 'unknown'] as const;
export type NodeState = (typeof NODE_STATES)[number];

/** The admin's fleet view: a live service by its node's state, the others by their own. */
export const FLEET_STATES = [...NODE_STATES, 'installing', 'failed', 'deleting'] as const;
export type FleetState = (typeof FLEET_STATES)[number];
/** What the fleet can be sorted by. */
export const FLEET_SORTS = ['last_seen', 'restarts', 'name', 'owner', 'product', 'host', 'state', 'created', 'margin'] as const;
export type FleetSort = (typeof FLEET_SORTS)[number];
export const FLEET_PAGE_SIZE = 100;

export const NODE_STATE_LABELS: Record<FleetState, string> = {
  online: 'Online',
  offline: 'Offline',
  restarting: 'Restarting',
  stopped: 'Stopped',
  unknown: 'Unknown',
  installing: 'Installing',
  failed: 'Installation failed',
  deleting: 'Deleting',
};

/** Beside Installing while the service's install waits in the queue (services.install_queued). */
export const INSTALL_WAITING_FOR_SLOT = 'Waiting for a free slot';

/**
 * How a product's network rewards uptime (products.reward_rule, migration 0041): a threshold of
 * hours online within each UTC day (Playa3ull's Master Node), or continuous uptime with no daily
 * minimum (Gala's node), shown as online streaks.
 */
export const REWARD_RULES = ['daily_threshold', 'continuous'] as const;
export type RewardRule = (typeof REWARD_RULES)[number];

/** Uptime rows are kept this long (UTC days). */
export const UPTIME_KEPT_DAYS = 90;
/** The service page's bars. */
export const UPTIME_DAYS_SHOWN = 30;

/** The node-logs function answers at most this many lines, each cut to LOG_LINE_MAX characters. */
export const LOG_LINES = 200;
export const LOG_LINE_MAX = 1000;
/** What a node's key becomes in its logs. */
export const REDACTED = '••••';

/** The service events the monitor writes (public.service_events.event). */
export const NODE_EVENTS = ['node_online', 'node_offline', 'node_restarting', 'node_stopped', 'node_restarted'] as const;
export type NodeEventDetail = { from?: NodeState | null; exit_code?: number | null; reason?: string | null };

const exit = (d: NodeEventDetail) => (typeof d.exit_code === 'number' ? ` (exit code ${d.exit_code})` : '');
const why = (d: NodeEventDetail) => (d.reason ? `: ${d.reason}` : '');

/** A node event as a person reads it, e.g. "Node restarted (exit code 137)"; undefined for events that are not the monitor's. */
export function nodeEventText(event: string, detail: NodeEventDetail | null | undefined): string | undefined {
  const d = detail ?? {};
  switch (event) {
    case 'node_online':
      return d.from && d.from !== 'unknown' && d.from !== 'stopped' ? 'Node back online' : 'Node online';
    case 'node_offline':
      return `Node offline${why(d)}`;
    case 'node_restarting':
      return `Node restarting${exit(d)}`;
    case 'node_restarted':
      return `Node restarted${exit(d)}`;
    case 'node_stopped':
      return 'Node stopped';
    default:
      return undefined;
  }
}

/** "6h 12m" from seconds. */
export function durationText(seconds: number): string {
  const m = Math.floor(seconds / 60);
  const h = Math.floor(m / 60);
  return h > 0 ? `${h}h ${m % 60}m` : `${m}m`;
}

/** A daily threshold as its product states it: "8h" for whole hours, else as durationText ("7h 30m"). */
export function thresholdText(seconds: number): string {
  return seconds > 0 && seconds % 3600 === 0 ? `${seconds / 3600}h` : durationText(seconds);
}

/**
 * A daily threshold's verdict, given only for a UTC day that is over (issue 36, item 7): today
 * is progress, since a node can still reach the threshold, or fall short of it, before midnight.
 */
export const thresholdVerdict = (met: boolean): 'met' | 'missed' => (met ? 'met' : 'missed');

/** Today's progress toward a daily threshold: "3h 10m of 8h today". */
export const thresholdProgressText = (secondsOnline: number, threshold: number) => `${durationText(secondsOnline)} of ${thresholdText(threshold)} today`;

/** A UTC day that is over, against its threshold: "9h 0m of 8h, met". */
export const thresholdDayText = (secondsOnline: number, threshold: number, met: boolean) =>
  `${durationText(secondsOnline)} of ${thresholdText(threshold)}, ${thresholdVerdict(met)}`;
