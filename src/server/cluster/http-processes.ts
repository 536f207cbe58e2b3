import cluster, { type Worker } from 'node:cluster';
import type { Logger } from '../http/logger';
import type { Stoppable } from '../shutdown';
import { answerMetricsRequests } from './cluster-metrics';
import type { ClusterMessage } from './messages';

/** Waits before replacing an HTTP process that died young, longer each time one does (a crash loop). */
const RESTART_DELAYS_MS = [0, 500, 2_000, 10_000];
/** An HTTP process that dies sooner than this after it started died young. */
const YOUNG_MS = 30_000;
/** After the grace, how long the HTTP processes have to cut their own work short before they are killed. */
const CUT_SHORT_MS = 2_000;

export type HttpProcesses = Stoppable & {
  /** The port, once every HTTP process listens; rejects when one dies first (the start failed). */
  listening: Promise<number>;
};

/**
 * In npm start's primary: runs `count` HTTP processes (`exec`, which serves when node:cluster says
 * it is a worker) sharing one port, and replaces any that dies until `stop`. `stop` asks each to
 * shut down gracefully and resolves when all have exited.
 */
export function startHttpProcesses(opts: { count: number; exec: string; logger: Logger }): HttpProcesses {
  const { count, logger } = opts;
  cluster.setupPrimary({ exec: opts.exec });
  const workers = new Set<Worker>();
  const serving = new Set<Worker>();
  answerMetricsRequests(() => [...serving]);
  let stopping = false;
  let youngDeaths = 0;

  let started!: (port: number) => void;
  let failed!: (e: Error) => void;
  const listening = new Promise<number>((resolve, reject) => {
    started = resolve;
    failed = reject;
  });
  let up = 0;
  let startedUp = false;

  const fork = () => {
    const bornAt = Date.now();
    const worker = cluster.fork();
    workers.add(worker);
    worker.once('listening', (address) => {
      serving.add(worker);
      if (!startedUp && ++up === count) {
        startedUp = true;
        started(address.port);
      }
    });
    worker.once('exit', (code, signal) => {
      workers.delete(worker);
      serving.delete(worker);
      if (stopping) return;
      if (!startedUp) {
        failed(new Error(`an HTTP process exited before it listened (code ${code}, signal ${signal})`));
        return;
      }
      const young = Date.now() - bornAt < YOUNG_MS;
      const delay = young ? RESTART_DELAYS_MS[Math.min(youngDeaths, RESTART_DELAYS_MS.length - 1)]! : 0;
      youngDeaths = young ? youngDeaths + 1 : 0;
      logger.error('an HTTP process exited: starting another', { pid: worker.process.pid, code, signal, inSeconds: delay / 1000 });
      setTimeout(() => {
        if (!stopping) fork();
      }, delay);
    });
    logger.info('HTTP process started', { pid: worker.process.pid });
  };
  for (let i = 0; i < count; i++) fork();

  return {
    listening,
    name: 'HTTP processes',
    async stop(giveUp) {
      stopping = true;
      const exits = [...workers].map((w) => new Promise<void>((resolve) => (w.isDead() ? resolve() : w.once('exit', () => resolve()))));
      // One still starting would not hear the message yet, and has nothing in hand: SIGTERM it.
      for (const w of workers) {
        if (serving.has(w) && w.isConnected()) w.send({ type: 'nodeharbor:stop' } satisfies ClusterMessage);
        else w.process.kill('SIGTERM');
      }
      // Each HTTP process keeps the same grace and cuts its own work short at its end; one that does not, is killed.
      giveUp.addEventListener('abort', () => setTimeout(() => workers.forEach((w) => w.process.kill('SIGKILL')), CUT_SHORT_MS).unref(), { once: true });
      await Promise.all(exits);
    },
  };
}
