import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import type { Queryable } from '../db/database';
import { classifyDbFailure } from '../db/db-failure';
import { withFields } from '../http/logger';
import { claim, complete, extendLeases, fail, failAbandoned, handBack, postpone, type ClaimedJob, type TaskFilter } from './queue';
import { taskRegistry, type Schedule } from './registry';
import { LANES, NotYet, type JobDeps, type Lane, type Task } from './task';

export type WorkerOptions = {
  /** Jobs run at once by this worker, in each lane. */
  concurrency: Readonly<Record<Lane, number>>;
  /** Wait between two looks at the queue when it was empty. */
  pollMs: number;
  /** How long a claimed job stays this worker's without a heartbeat; then another may take it. */
  leaseSeconds: number;
  tasks?: ReadonlyMap<string, Task>;
  /** Recurring tasks (registry.ts's schedules()). */
  schedules: readonly Schedule[];
};

export type Worker = {
  readonly id: string;
  /**
   * Claims no more jobs and resolves once the running ones have finished, or, when `giveUp`
   * aborts first, once those still running are handed back to the queue (their attempt not spent).
   */
  stop(giveUp?: AbortSignal): Promise<void>;
  /** Whether its loop still turns: not stopped, and it last looked at the queue within a minute (or five polls). */
  alive(): boolean;
};

/** How long a job waits after the database failed it in passing; the outage itself is logged once (db/outage-log.ts). */
const POSTPONE_SECONDS = 15;

/**
 * Whether a failure is the database's passing state rather than the job's: unreachable, no
 * connection, or a row held by someone else. A statement timeout is not one of them: the job's
 * own statement may be what is too slow, so it spends an attempt like any other failure.
 */
function isPassing(e: unknown): boolean {
  const kind = classifyDbFailure(e)?.kind;
  return kind !== undefined && kind !== 'statement_timeout';
}

/** A schedule is looked at least this often; its key makes a repeat harmless. */
const SCHEDULE_LOOK_MAX_MS = 10_000;

/**
 * How often a schedule is looked at: twice per period, so that a turn of the loop that comes late
 * still finds each period, and at least every 10 s. A look every 10 s made a 3 s monitor sweep every
 * 10 s, each gap then too long to count as observed (issue 33, item 12); the loop's wait is cut
 * short for the next look, so the worker keeps even a 1 s period.
 */
const lookEveryMs = (s: Schedule) => Math.min(SCHEDULE_LOOK_MAX_MS, (s.everySeconds * 1000) / 2);

/**
 * What a lane's claims take: the node lane its tasks; the upkeep lane every other, so that a job
 * naming no known task is still claimed, and failed.
 */
function laneFilter(lane: Lane, tasks: ReadonlyMap<string, Task>): TaskFilter {
  const nodeTasks = [...tasks.values()].filter((t) => t.lane === 'nodes').map((t) => t.name);
  return { tasks: nodeTasks, among: lane === 'nodes' };
}

/**
 * Starts a worker over `deps.db`: it polls nodeharbor.jobs, runs up to `concurrency` handlers per lane,
 * keeps their leases alive, retries failures with back-off and enqueues the recurring tasks.
 * Several workers, in one process or many, may share one database.
 */
export function startWorker(deps: JobDeps, opts: WorkerOptions): Worker {
  const id = `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;
  const tasks = opts.tasks ?? taskRegistry;
  const running = new Map<number, Promise<void>>();
  const runningIn = Object.fromEntries(LANES.map((lane) => [lane, new Set<number>()])) as Record<Lane, Set<number>>;
  const filters = LANES.map((lane) => [lane, laneFilter(lane, tasks)] as const);
  const hasFreeSlot = () => LANES.some((lane) => runningIn[lane].size < opts.concurrency[lane]);
  let stopping = false;
  let wake: (() => void) | undefined;
  const looks = opts.schedules.map((schedule) => ({ schedule, at: 0 }));
  const untilNextLook = () => Math.max(0, Math.min(...looks.map((l) => l.at)) - Date.now());
  let lastTurnAt = Date.now();
  let looped = false;

  const heartbeat = setInterval(
    () => {
      extendLeases(deps.db, id, [...running.keys()], opts.leaseSeconds).catch((e: unknown) => {
        if (!isPassing(e)) deps.logger.warn('job lease not extended', { error: e });
      });
    },
    Math.max(200, (opts.leaseSeconds * 1000) / 3),
  );

  // A job that failed for good: its task may say so where people look (a service's log).
  // A job's log lines name the job, and the request that enqueued it.
  const loggerOf = (job: ClaimedJob) => withFields(deps.logger, { job: job.id, ...(job.requestId ? { requestId: job.requestId } : {}) });

  const gaveUp = async (job: ClaimedJob, error: string) => {
    const logger = loggerOf(job);
    logger.error('job gave up', { task: job.task, attempts: job.attempts, error });
    const task = tasks.get(job.task);
    const payload = task?.payload.safeParse(job.payload);
    if (!task?.onFailed || !payload?.success) return;
    await task.onFailed(payload.data, { ...deps, logger }, error).catch((e: unknown) => logger.error('onFailed failed', { error: e }));
  };

  const run = async (job: ClaimedJob) => {
    const logger = loggerOf(job);
    const task = tasks.get(job.task);
    const payload = task?.payload.safeParse(job.payload);
    if (!task || !payload?.success) {
      // Another attempt would meet the same unknown task or payload: fail it now.
      const error = task ? `invalid payload: ${payload?.error?.message}` : `no task named ${job.task}`;
      logger.error('job refused', { task: job.task, error });
      await fail(deps.db, id, job, error, true).catch((e: unknown) => logger.error('job failure not recorded', { error: e }));
      return;
    }
    const started = Date.now();
    try {
      await task.run(payload.data, { ...deps, logger });
      await complete(deps.db, id, job.id);
      logger.debug('job done', { task: job.task, ms: Date.now() - started });
    } catch (e) {
      const error = e instanceof Error ? e.message : String(e);
      if (e instanceof NotYet) {
        logger.debug('job waits', { task: job.task, error });
        await postpone(deps.db, id, job, error, e.seconds).catch(() => {});
        return;
      }
      if (isPassing(e)) {
        logger.debug('job postponed', { task: job.task, error });
        // When even this fails, the lease runs out and the job is taken again.
        await postpone(deps.db, id, job, error, POSTPONE_SECONDS).catch(() => {});
        return;
      }
      logger.warn('job failed', { task: job.task, attempt: job.attempts, error });
      const final = await fail(deps.db, id, job, error).catch((err: unknown) => {
        logger.error('job failure not recorded', { error: err });
        return false;
      });
      if (final) await gaveUp(job, error);
    }
  };

  const loop = async () => {
    while (!stopping) {
      lastTurnAt = Date.now();
      let claimed = 0;
      try {
        const due = looks.filter((l) => Date.now() >= l.at);
        // The next look is set first: a look that fails (the database is away) is not retried in a busy loop.
        for (const l of due) l.at = Date.now() + lookEveryMs(l.schedule);
        const schedules = due.map((l) => l.schedule);
        if (schedules.length > 0) await enqueueSchedules(deps.db, schedules);
        for (const job of await failAbandoned(deps.db)) await gaveUp(job, 'the worker stopped during the last attempt');
        for (const [lane, only] of filters) {
          const free = opts.concurrency[lane] - runningIn[lane].size;
          if (free <= 0) continue;
          const jobs = await deps.db.transaction((tx) => claim(tx, id, free, opts.leaseSeconds, only));
          claimed += jobs.length;
          for (const job of jobs) {
            runningIn[lane].add(job.id);
            running.set(
              job.id,
              run(job).finally(() => {
                running.delete(job.id);
                runningIn[lane].delete(job.id);
                wake?.();
              }),
            );
          }
        }
      } catch (e) {
        if (stopping) break;
        if (!isPassing(e)) deps.logger.error('job queue unavailable', { error: e });
      }
      // Jobs were found and slots are free again: more may be due. Otherwise wait for the poll, a
      // schedule's next look, or a finished job.
      if (claimed > 0 && hasFreeSlot()) continue;
      await new Promise<void>((r) => {
        const t = setTimeout(r, Math.min(opts.pollMs, untilNextLook()));
        wake = () => {
          clearTimeout(t);
          r();
        };
      });
      wake = undefined;
    }
  };
  const looping = loop().finally(() => {
    looped = true;
  });
  const staleAfterMs = Math.max(60_000, 5 * opts.pollMs);

  return {
    id,
    alive: () => !stopping && !looped && Date.now() - lastTurnAt < staleAfterMs,
    async stop(giveUp) {
      stopping = true;
      wake?.();
      await looping;
      const finished = Promise.all(running.values()).then(() => true);
      const done = giveUp ? await Promise.race([finished, aborted(giveUp)]) : await finished;
      if (!done && running.size > 0) {
        const ids = await handBack(deps.db, id, [...running.keys()]).catch((e: unknown) => {
          // Their leases then run out as a killed worker's would.
          deps.logger.error('jobs not handed back', { error: e });
          return [];
        });
        deps.logger.warn('jobs handed back', { jobs: ids });
      }
      clearInterval(heartbeat);
    },
  };
}

/** Resolves false when `signal` aborts (at once if it has). */
function aborted(signal: AbortSignal): Promise<false> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve(false);
    else signal.addEventListener('abort', () => resolve(false), { once: true });
  });
}

/** Enqueues each recurring task for the current period, keyed by the period's start in the database's clock. */
async function enqueueSchedules(q: Queryable, schedules: readonly Schedule[]): Promise<void> {
  for (const s of schedules) {
    await q.query(
      `select nodeharbor.enqueue_job($1, '{}', $1 || ':' || to_char(b at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS'), b)
         from (select to_timestamp(floor(extract(epoch from now()) / $2) * $2) as b) t`,
      [s.task, s.everySeconds],
    );
  }
}
