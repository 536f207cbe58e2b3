import { autoRenewTexts } from './auto-renew';
import { installFailureText } from './install-failure';
import { nodeEventText, type NodeEventDetail } from './node-health';
import { powerEventText } from './power-actions';

/** The dates and amounts of an event's text, as the reader's formatters write them. */
export type EventFormatters = { date(iso: string): string; money(amount: number): string };

/** What the server may put in an event's detail (private.record_service_event, the worker's recordEvent). */
export type ServiceEventDetail = NodeEventDetail & {
  reused?: boolean;
  charged?: number;
  /** install_failed: what came back to the balance for the installation (migration 0050). */
  refunded?: number;
  /** install_failed: why, in its owner's words (src/shared/install-failure.ts, migration 0051). */
  cause?: string;
  renews_at?: string;
  /** suspended: when the suspension ends unpaid. */
  terminates_at?: string;
  months?: number;
  by?: string;
  replicas?: number;
  /** An engine's or a job's error: in an admin's copy only (migration 0051). */
  error?: string;
  /** renamed: the new name. */
  to?: string;
  /** power_failed: the action that failed (restart, stop, start). */
  action?: string;
};

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** The server's reasons for an expiry and a deletion, in the owner's words; another reason is shown as written. */
const REASONS: Record<string, string> = {
  'balance too low': 'the balance was too low to renew',
  'no renewing plan': 'the plan no longer renews',
  account_deleted: 'the account was closed',
  suspension_ended: 'the suspension ended without enough credit to renew',
  auto_renew_off: 'automatic renewal was off',
};
const reason = (r: string | null | undefined) => (r ? `: ${REASONS[r] ?? r}` : '');

/**
 * Every event the server writes to service_events, as the service's owner reads it: the lifecycle
 * steps of the SQL functions, the worker's steps and corrections, and the monitor's node events.
 * The admin's page of a user tells them in the same words, with the operator's notes the owner's
 * copy leaves out (an engine's reason: admin_user_events, migration 0051).
 */
export function serviceEventText(event: string, detail: ServiceEventDetail | null | undefined, f: EventFormatters): string {
  const d = detail ?? {};
  switch (event) {
    case 'install_requested':
      return d.reused ? 'Installation started (a purchased service reused)' : 'Installation started';
    case 'installed':
      return 'Node installed';
    case 'install_failed': {
      const refunded = typeof d.refunded === 'number' && d.refunded > 0 ? `; ${f.money(d.refunded)} refunded to your balance` : '';
      // Only an admin's copy has the engine's reason (the event's notes, migration 0051); its owner reads the cause.
      return d.reason ? `Installation failed: ${d.reason}${refunded}` : `Installation failed${refunded}. ${installFailureText(d.cause)}`;
    }
    case 'retry_requested':
      return `${d.by === 'admin' ? 'Retry requested by an administrator' : 'Retry requested'}${typeof d.charged === 'number' && d.charged > 0 ? `, ${f.money(d.charged)} charged` : ''}`;
    case 'renewed': {
      // Renewals recorded before migration 0021 carry no months.
      const period = typeof d.months === 'number' ? ` for ${plural(d.months, 'month', 'months')}` : '';
      const until = d.renews_at ? ` until ${f.date(d.renews_at)}` : '';
      return `Renewed${period}${until}${typeof d.charged === 'number' && d.charged > 0 ? `, ${f.money(d.charged)} charged` : ''}`;
    }
    case 'extended':
      return typeof d.months === 'number' ? `Extended by ${plural(d.months, 'month', 'months')}` : 'Extended';
    case 'expired':
      return `Expired${reason(d.reason)}`;
    case 'suspended':
      return `Suspended${reason(d.reason)}${d.terminates_at ? `; terminates on ${f.date(d.terminates_at)}` : ''}`;
    case 'start_requested':
      return 'Start requested';
    case 'started':
      return 'Started';
    case 'start_failed':
      return 'Starting the node failed';
    case 'stopped':
      return 'Stopped';
    case 'stop_failed':
      return 'Stopping the node failed';
    case 'delete_requested':
      return `Deletion requested${reason(d.reason)}`;
    case 'delete_failed':
      return 'Deleting the node failed';
    case 'deleted':
      return 'Deleted';
    case 'node_recreated':
      return 'Node recreated';
    case 'replicas_corrected':
      return d.replicas === 0 ? 'Node stopped, as it should be' : 'Node started again, as it should be';
    case 'orphan_removed':
      return 'Leftover node removed';
    case 'logs_read':
      return 'Logs read by an administrator';
    case 'key_changed':
      return 'Key changed';
    case 'key_applied':
      return 'New key handed to the node';
    case 'key_update_failed':
      return 'The new key could not be handed to the node';
    case 'renamed':
      return d.to ? `Renamed to ${d.to}` : 'Renamed';
    case 'auto_renew_on':
      return autoRenewTexts.turnedOn;
    case 'auto_renew_off':
      return autoRenewTexts.turnedOff;
    default:
      // An event newer than this list is still told, by its name.
      return nodeEventText(event, d) ?? powerEventText(event, d) ?? humanize(event);
  }
}

/** "some_new_event" → "Some new event". */
function humanize(event: string): string {
  const words = event.replace(/[_-]+/g, ' ').trim();
  return words ? words[0]!.toUpperCase() + words.slice(1) : 'Event';
}
