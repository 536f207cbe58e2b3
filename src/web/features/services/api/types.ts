import type { ServiceState } from '@shared/constants';
import type { NodeState, RewardRule } from '@shared/node-health';

/** A service as the services view shows it to its owner (spec §3). */
export type Service = {
  id: string;
  user_id: string;
  name: string;
  description: string | null;
  api_key: string;
  product_id: string | null;
  created_at: string;
  renews_at: string | null;
  expired: boolean;
  is_installed: boolean;
  is_deleting: boolean;
  is_deleted: boolean;
  /** The one state the booleans above are derived from; absent from older answers. */
  state?: ServiceState | null;
  /** Why its installation failed, while the state is failed: a cause, in words by installFailureText (the engine's reason is the admins'). */
  failure_cause?: string | null;
  /** The node monitor's last word on a live service's node; null when there is no node to watch (installing, failed, deleting). */
  node_state?: NodeState | null;
  /** When a suspended service is terminated unless it is paid for; null otherwise. */
  terminates_at?: string | null;
  /** The last sample that found the node online. */
  last_seen_at?: string | null;
  /** Installing, and still waiting in the queue for a free slot: its install has not started. */
  install_queued?: boolean | null;
  /** Since when the node's current run has been online without a break; null while it is not online. */
  online_since?: string | null;
  /** The cloud location of the node's own machine (fsn1); null for a node without one. */
  location?: string | null;
  /** Its owner's word: renew at the end of each paid period (true, the default), or end there. Absent from older answers: true. */
  auto_renew?: boolean | null;
  /**
   * What came back to the balance when this installation failed (numeric, as the API sends it);
   * null unless it failed and had been charged. A Retry of it charges the plan's price again.
   */
  install_refund?: number | string | null;
};

export type Product = {
  id: string;
  name: string;
  description: string | null;
  price: number;
  features: string[];
  is_active: boolean;
  renew_interval: string | null;
  base_product_code: string | null;
  properties: string | null;
  /** Seconds online per UTC day the network rewards; null when the product has none. */
  uptime_threshold_seconds?: number | null;
  /** How the network rewards uptime: that threshold, or continuous uptime. */
  reward_rule?: RewardRule;
};
