import type { Server } from 'node:http';
import type { Logger } from './http/logger';

/**
 * Something a shutdown stops. `giveUp` aborts when the grace is over: stop waiting for the work
 * in hand and cut it short (close the connections, hand the jobs back).
 */
export type Stoppable = { name: string; stop(giveUp: AbortSignal): Promise<void> };

/** Whether the process is shutting down; /healthz and /ready answer 503 then, so a load balancer stops sending. */
export type Lifecycle = { stopping: boolean };

export type ShutdownOptions = {
  logger: Logger;
  lifecycle: Lifecycle;
  /** How long the things in `stop` may take to finish their work (SHUTDOWN_GRACE_SECONDS). */
  graceMs: number;
  /** Stopped together, at once: what takes new work (the HTTP server, the worker); read when the shutdown begins. */
  stop: readonly Stoppable[];
  /** Closed one after another once every `stop` has finished: what they used (the database). */
  close: readonly Stoppable[];
};

/** Time after the grace for handing jobs back and closing the database, before the process gives up and exits 1. */
const CLOSE_MS = 5_000;

/**
 * Stops the process gracefully: everything in `stop` at once, given `graceMs` to finish, then
 * everything in `close` in order. Resolves 0 when all stopped, even cut short at the end of the
 * grace; the process exits 1 by itself if closing then hangs.
 */
export async function shutdown(signal: string, opts: ShutdownOptions): Promise<number> {
  const { logger, lifecycle, graceMs } = opts;
  lifecycle.stopping = true;
  const giveUp = new AbortController();
  const grace = setTimeout(() => {
    logger.warn('grace over: cutting the rest short', { graceSeconds: graceMs / 1000 });
    giveUp.abort();
  }, graceMs);
  const hang = setTimeout(() => {
    logger.error('shutdown hung: exiting');
    process.exit(1);
  }, graceMs + CLOSE_MS);
  hang.unref();
  const failed = (item: Stoppable) => (e: unknown) => logger.error('did not stop cleanly', { item: item.name, error: e });
  // Each stop begins synchronously (the server stops listening here), before the line below is logged.
  const stopping = opts.stop.map((item) => item.stop(giveUp.signal).catch(failed(item)));
  logger.info('shutting down', { signal, graceSeconds: graceMs / 1000 });
  await Promise.all(stopping);
  clearTimeout(grace);
  for (const item of opts.close) await item.stop(giveUp.signal).catch(failed(item));
  logger.info('stopped', { cutShort: giveUp.signal.aborted });
  return 0;
}

/**
 * SIGTERM or SIGINT (or `signals`) runs `shutdown` and exits with its code; a second signal exits
 * at once (1), for an operator who will not wait. Returns a function that starts the same shutdown
 * for another reason (a cluster's primary asking), which does nothing once it has begun.
 */
export function stopOnSignals(opts: ShutdownOptions, signals: readonly NodeJS.Signals[] = ['SIGTERM', 'SIGINT']): (reason: string) => void {
  let started = false;
  const begin = (reason: string) => {
    started = true;
    void shutdown(reason, opts).then((code) => process.exit(code));
  };
  const onSignal = (signal: NodeJS.Signals) => {
    if (started) {
      opts.logger.warn('stopped at once: a second signal', { signal });
      process.exit(1);
    }
    begin(signal);
  };
  for (const signal of signals) process.on(signal, onSignal);
  return (reason) => {
    if (!started) begin(reason);
  };
}

/**
 * The HTTP server as a Stoppable: it stops listening at once (a new connection is refused), closes
 * its idle keep-alive connections, answers the requests in flight and the ones already sent on
 * their connections, and closes each connection when it falls idle; when the grace is over, the rest.
 */
export function stoppableServer(server: Server): Stoppable {
  return {
    name: 'http server',
    stop: (giveUp) =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
        giveUp.addEventListener('abort', () => server.closeAllConnections(), { once: true });
      }),
  };
}
