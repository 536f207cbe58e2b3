import type { SendHandle } from 'node:child_process';
import type { MetricObjectWithValues, MetricValue } from 'prom-client';

/** What the primary and its HTTP processes say to each other over the cluster's IPC channel. */
export type ClusterMessage =
  /** HTTP process → primary: ready to serve; where should it listen? */
  | { type: 'nodeharbor:ready' }
  /** primary → HTTP process: open the port (HOST:PORT) and pass its socket back, or (`open` false) listen on the socket sent along. */
  | { type: 'nodeharbor:listen'; open: boolean }
  /** HTTP process → primary: listening on `port`; the socket comes along when it opened the port. */
  | { type: 'nodeharbor:listening'; port: number }
  /** primary → HTTP process: stop listening (the primary is stopping); its connections stay open. */
  | { type: 'nodeharbor:stop-listening' }
  /** HTTP process → primary: done, its descriptor of the port closed. */
  | { type: 'nodeharbor:not-listening' }
  /** primary → HTTP process: shut down gracefully, once none listens (the primary is stopping). */
  | { type: 'nodeharbor:stop' }
  /** HTTP process → primary: the whole cluster's process metrics, for the /metrics it is answering. */
  | { type: 'nodeharbor:metrics'; id: number }
  /** primary → HTTP process: the answer, Prometheus' text (`error` when it could not be gathered). */
  | { type: 'nodeharbor:metrics-result'; id: number; text?: string; error?: string }
  /** primary → HTTP process: this process's own metrics, for the aggregate. */
  | { type: 'nodeharbor:own-metrics'; id: number }
  /** HTTP process → primary: the answer, as prom-client's getMetricsAsJSON gives them. */
  | { type: 'nodeharbor:own-metrics-result'; id: number; metrics: MetricObjectWithValues<MetricValue<string>>[] };

/** A message of ours, of the given type; anything else on the channel is not. */
export function isMessage<T extends ClusterMessage['type']>(message: unknown, type: T): message is Extract<ClusterMessage, { type: T }> {
  return typeof message === 'object' && message !== null && (message as { type?: unknown }).type === type;
}

/** Sends `message` on the channel to the primary (in an HTTP process), with `handle` (kept open here) if given. */
export const toPrimary = (message: ClusterMessage, handle?: SendHandle) =>
  handle ? process.send!(message, handle, { keepOpen: true }) : process.send!(message);
