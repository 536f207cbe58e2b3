import cluster, { type Worker } from 'node:cluster';
import type { SendHandle } from 'node:child_process';
import type { Logger } from '../http/logger';
import type { Stoppable } from '../shutdown';
import { answerMetricsRequests } from './cluster-metrics';
import { isMessage, type ClusterMessage } from './messages';

/** Waits before replacing an HTTP process that died young, longer each time one does (a crash loop). */
const RESTART_DELAYS_MS = [0, 500, 2_000, 10_000];
/** An HTTP process that dies sooner than this after it started died young. */
const YOUNG_MS = 30_000;
/**
 * Once work is cut short, how long the HTTP processes have to end theirs before they are killed:
 * within the 3 s shutdown.ts keeps for closing, leaving the primary a second to close its own.
 */
const CUT_SHORT_MS = 2_000;

/**
 * Asks each of `workers` to stop listening, and resolves when each has said it did (or exited),
 * or at `giveUp`. The port closes as the last lets go of it.
 */
function stopListening(workers: Worker[], giveUp: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const waiting = new Set(workers);
    const done = () => {
      cluster.off('message', onMessage);
      cluster.off('exit', onExit);
      giveUp.removeEventListener('abort', done);
      resolve();
    };
    const answered = (worker: Worker) => {
      waiting.delete(worker);
      if (waiting.size === 0) done();
    };
    const onMessage = (worker: Worker, message: unknown) => {
      if (isMessage(message, 'nodeharbor:not-listening')) answered(worker);
    };
    const onExit = (worker: Worker) => answered(worker);
    cluster.on('message', onMessage);
    cluster.on('exit', onExit);
    giveUp.addEventListener('abort', done, { once: true });
    for (const w of workers) w.send({ type: 'nodeharbor:stop-listening' } satisfies ClusterMessage);
    if (waiting.size === 0) done();
  });
}

export type HttpProcesses = Stoppable & {
  /** The port, once every HTTP process listens; rejects when one dies first (the start failed). */
  listening: Promise<number>;
};

/**
 * In npm start's primary: runs `count` HTTP processes (`exec`, which serves when node:cluster says
 * it is a worker) sharing one port, and replaces any that dies until `stop`. `stop` asks each to
 * stop listening, then, once none does (the port is closed), to shut down gracefully, and resolves
 * when all have exited.
 *
 * The port is not node:cluster's (decision 034): the first HTTP process opens it and passes its
 * socket to the primary, which passes it on to the others and to each replacement; each accepts its
 * own connections from it. The primary holds the socket without accepting, so that a connection
 * waits in the kernel's queue while every process is being replaced, and lets go of it first when
 * it stops: the last HTTP process to stop listening closes it, and no connection is left in a queue
 * nobody takes from.
 */
export function startHttpProcesses(opts: { count: number; exec: string; logger: Logger }): HttpProcesses {
  const { count, logger } = opts;
  cluster.setupPrimary({ exec: opts.exec });
  const workers = new Set<Worker>();
  const serving = new Set<Worker>();
  answerMetricsRequests(() => [...serving]);
  let stopping = false;
  let youngDeaths = 0;
  /** The listening socket, once the first HTTP process has opened it; `opening` is asked to, meanwhile. */
  let socket: SendHandle | undefined;
  let opening: Worker | undefined;
  const waiting: Worker[] = [];

  let started!: (port: number) => void;
  let failed!: (e: Error) => void;
  const listening = new Promise<number>((resolve, reject) => {
    started = resolve;
    failed = reject;
  });
  let up = 0;
  let startedUp = false;

  const listenOn = (worker: Worker) => {
    if (!worker.isConnected() || stopping) return;
    // keepOpen: the primary passes the same socket on again, to the next replacement.
    if (socket) worker.send({ type: 'nodeharbor:listen', open: false } satisfies ClusterMessage, socket, { keepOpen: true });
    else if (!opening) {
      opening = worker;
      worker.send({ type: 'nodeharbor:listen', open: true } satisfies ClusterMessage);
    } else waiting.push(worker);
  };
  cluster.on('message', (worker, message: unknown, handle?: SendHandle) => {
    if (!workers.has(worker)) return;
    if (isMessage(message, 'nodeharbor:ready')) listenOn(worker);
    if (!isMessage(message, 'nodeharbor:listening')) return;
    if (worker === opening && handle) {
      socket = handle;
      waiting.splice(0).forEach(listenOn);
    }
    serving.add(worker);
    if (!startedUp && ++up === count) {
      startedUp = true;
      started(message.port);
    }
  });

  const fork = () => {
    const bornAt = Date.now();
    const worker = cluster.fork();
    workers.add(worker);
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
      // A raw socket handle (net.Native in child_process' terms): closing it closes the primary's descriptor alone.
      (socket as { close?: () => void } | undefined)?.close?.();
      const exits = [...workers].map((w) => new Promise<void>((resolve) => (w.isDead() ? resolve() : w.once('exit', () => resolve()))));
      const asked = [...workers].filter((w) => serving.has(w) && w.isConnected());
      // One still starting would not hear the message yet, and has nothing in hand: SIGTERM it.
      for (const w of workers) if (!asked.includes(w)) w.process.kill('SIGTERM');
      // Each HTTP process keeps the same grace and cuts its own work short at its end; one that does not, is killed.
      giveUp.addEventListener('abort', () => setTimeout(() => workers.forEach((w) => w.process.kill('SIGKILL')), CUT_SHORT_MS).unref(), { once: true });
      // NOTE: the port closes first, and only then do the HTTP processes close their connections.
      // A client whose connection closes connects again: it must be refused, not left in the
      // listening socket's queue as the last process lets go of it.
      await stopListening(asked, giveUp);
      for (const w of asked) if (w.isConnected()) w.send({ type: 'nodeharbor:stop' } satisfies ClusterMessage);
      await Promise.all(exits);
    },
  };
}
