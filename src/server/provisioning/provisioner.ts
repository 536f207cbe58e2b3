/** What a node looks like to the engine that runs it. */
export type NodeStatus = 'absent' | 'running' | 'stopped';

/** The node of one service, as the engine needs it to install it. */
export type NodeSpec = { serviceId: string; productId: string | null };

/**
 * Runs customers' nodes. Every method is idempotent, because jobs are at-least-once: installing
 * an installed node, or stopping a stopped one, changes nothing. The simulated driver is the
 * default; a real engine (Kubernetes) implements the same interface.
 */
export interface Provisioner {
  install(node: NodeSpec): Promise<void>;
  uninstall(serviceId: string): Promise<void>;
  stop(serviceId: string): Promise<void>;
  start(serviceId: string): Promise<void>;
  status(serviceId: string): Promise<NodeStatus>;
}
