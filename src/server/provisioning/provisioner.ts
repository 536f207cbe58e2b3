import type { InstallFailureCause } from '../../shared/install-failure';
import type { NodeState } from '../../shared/node-health';

/** What a node looks like to the engine that runs it, in short (start and stop decide on this). */
export type NodeStatus = 'absent' | 'running' | 'stopped';

/**
 * How a node is doing, as its engine tells it. `running` is the current task's, with the moment it
 * started running, so that a caller can wait for it to stay up (a settle window); `failing` is
 * reported once the engine has failed to run it several times in a row (a missing image, a
 * command that exits); `starting` covers the rest (pulling, waiting for a host), with the engine's
 * reason when it gave one. A failing node's reason is `inTheNodesWords` when the driver already
 * has the node's own account of it (a machine's agent reports what Gala said), and its `cause` is
 * what its owner is told (not_started unless the driver knows better: a key the network refused).
 */
export type NodeHealth =
  | { state: 'absent' }
  | { state: 'stopped' }
  | { state: 'starting'; reason?: string }
  | { state: 'running'; since: Date }
  | { state: 'failing'; reason: string; inTheNodesWords?: boolean; cause?: InstallFailureCause };

/** Everything an engine needs to run the node of one service. */
export type NodeSpec = {
  serviceId: string;
  userId: string;
  /** The product's base_product_code (a label, and the key of NODE_IMAGES). */
  product: string;
  image: string;
  /** CPU limit in cores, and memory limit in MiB. */
  cpus: number;
  memoryMb: number;
  /** Run only on hosts in this pool (a node label), or anywhere when null. */
  pool: string | null;
  /** The customer's key, decrypted for this call only: it goes into the engine's secret store and nowhere else. */
  key: string;
  /** For a product whose nodes run on machines of their own (node_driver machine), the machine's settings; null on Swarm. */
  machine: MachineSettings | null;
};

/** A product's machine, as its row gives it in MACHINE_PROVIDER's names. */
export type MachineSettings = { serverType: string; image: string; locations: string[]; workload: string };

/** One thing in the engine carrying our label: a node, or a leftover secret whose node is gone (`absent`). */
export type EngineNode = { serviceId: string; status: NodeStatus };

/**
 * One node as its engine sees it now: the node monitor's sample. `taskId` names the engine's
 * current run of the node (a Swarm task); a new one means the node was started again. `exitCode`
 * is that of its last run that ended, `reason` the engine's words for why it does not run.
 */
export type NodeObservation = {
  serviceId: string;
  state: NodeState;
  taskId: string | null;
  /** The host it runs on (the Swarm node's hostname). */
  host: string | null;
  exitCode: number | null;
  reason: string | null;
};

/**
 * What one running node uses now, as its engine measures it (the node monitor's usage sample).
 * `run` names the run the network counters belong to (they start again at 0 with a new one).
 */
export type NodeUsage = {
  serviceId: string;
  run: string | null;
  /** CPU in use, as a percentage of the node's CPU limit. */
  cpuPercent: number;
  memoryBytes: number;
  /** The node's memory limit; null when the engine does not say. */
  memoryLimitBytes: number | null;
  /** Bytes received and sent since the run began; null when the engine does not count them. */
  rxBytes: number | null;
  txBytes: number | null;
};

/** What one usage call may spend: at most `calls` engine calls, and no engine call after `deadline`. */
export type UsageBudget = { calls: number; deadline: AbortSignal };

/**
 * Runs customers' nodes. Every method is idempotent, because jobs are at-least-once: installing
 * an installed node, or stopping a stopped one, changes nothing, and removing what is not there
 * is done. Drivers: simulated (the embedded default) and Docker Swarm (drivers/).
 */
export interface Provisioner {
  /** Creates the node unless the engine already has one for this service; does not wait for it to run. */
  install(node: NodeSpec): Promise<void>;
  /**
   * Hands an existing node the spec's key: it runs again with it, in a new run (a stopped node
   * keeps 0 replicas and reads it when started). Only the key of the spec is used; a node that
   * is not there is not created. Repeating it ends the same way: the node reads this key.
   */
  updateKey(node: NodeSpec): Promise<void>;
  /** Removes the node and its secret. */
  uninstall(serviceId: string): Promise<void>;
  /** Keeps the node but runs nothing (0 replicas). */
  stop(serviceId: string): Promise<void>;
  /** Runs a stopped node again (1 replica). */
  start(serviceId: string): Promise<void>;
  /**
   * Ends a running node's run and starts a new one (its owner's Restart). A stopped node stays
   * stopped and a node that is not there is not created. Asked twice, it may restart twice: a
   * restart is no state to reach, and a second one does no harm.
   */
  restart(serviceId: string): Promise<void>;
  status(serviceId: string): Promise<NodeStatus>;
  health(serviceId: string): Promise<NodeHealth>;
  /** Everything of ours in the engine, found by label; nothing else is ever listed or touched. */
  list(): Promise<EngineNode[]>;
  /**
   * Every node of ours as it is now, in a few engine calls whatever their number (the monitor's
   * sweep): online when its current run is running, restarting when a run ended and the next
   * is on its way, offline when none runs and none is starting, stopped at 0 replicas.
   */
  observe(): Promise<NodeObservation[]>;
  /**
   * What the running nodes use now, within `budget`: a node left out (over the budget, or on a
   * host the engine cannot measure) has no sample this time. A driver whose nodes cannot be
   * measured answers none. A driver that must choose takes the nodes it sampled longest ago first,
   * so that every node has its turn. Answers by the deadline with what it has; throws only when
   * the engine does not answer at all.
   */
  usage(budget: UsageBudget): Promise<NodeUsage[]>;
  /** The node's last `tail` lines of output, oldest first, as they were written (redacting is the caller's); none when there is no node. */
  logs(serviceId: string, tail: number): Promise<string[]>;
}
