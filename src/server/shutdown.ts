import type { Server } from 'node:http';
import { closeGracefully } from './http/http-server';
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
  /** How long the whole shutdown may take (SHUTDOWN_GRACE_SECONDS): the things in `stop` finishing their work, then `close`. */
  graceMs: number;
  /** Stopped together, at once: what takes new work (the HTTP server, the worker); read when the shutdown begins. */
  stop: readonly Stoppable[];
  /** Closed one after another once every `stop` has finished: what they used (the database). */
  close: readonly Stoppable[];
};

/**
 * The end of the grace kept for what follows the work cut short (handing jobs back, closing the
 * database), at most half of it: the process is gone within the grace, before an orchestrator's
 * stop timeout of the same length kills it.
 */
const CLOSE_MS = 3_000;

/**
 * Stops the process gracefully within `graceMs`: everything in `stop` at once, cut short when
 * the time left is what closing needs, then everything in `close` in order. Resolves 0 when all
 * stopped, even cut short; the process exits 1 by itself at the end of the grace if closing hangs.
 */
export async function shutdown(signal: string, opts: ShutdownOptions): Promise<number> {
  const { logger, lifecycle, graceMs } = opts;
  lifecycle.stopping = true;
  const giveUp = new AbortController();
  const grace = setTimeout(
    () => {
      logger.warn('grace over: cutting the rest short', { graceSeconds: graceMs / 1000 });
      giveUp.abort();
    },
    graceMs - Math.min(CLOSE_MS, graceMs / 2),
  );
  const hang = setTimeout(() => {
    logger.error('shutdown hung: exiting');
    process.exit(1);
  }, graceMs);
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
 * The HTTP server (createHttpServer's) as a Stoppable: it stops listening at once (a new connection
 * is refused), answers the requests in flight, and those sent meanwhile on open connections, with
 * `Connection: close`, and lets idle keep-alive connections end at their Keep-Alive timeout
 * (http-server.ts, closeGracefully); when the grace is over, it closes the rest.
 */
export function stoppableServer(server: Server): Stoppable {
  return {
    name: 'http server',
    stop: (giveUp) => {
      giveUp.addEventListener('abort', () => server.closeAllConnections(), { once: true });
      return closeGracefully(server);
    },
  };
}
