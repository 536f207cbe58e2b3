import type { Queryable } from '../db/database';

/** A job as a worker holds it after claiming it. */
export type ClaimedJob = { id: number; task: string; payload: unknown; attempts: number; maxAttempts: number; requestId: string | null };

export type EnqueueOptions = {
  /** Idempotency: while a job with this key exists (whatever its state), no other is created. */
  key?: string;
  /** Not before this time (delayed and scheduled jobs). */
  runAt?: Date;
  maxAttempts?: number;
};

/**
 * Enqueues a job on `q`, which may be an open transaction: the job then exists if and only if the
 * transaction commits. Returns the job's id, or null when `key` was already taken.
 */
export async function enqueue(q: Queryable, task: string, payload: unknown, opts: EnqueueOptions = {}): Promise<number | null> {
  const { rows } = await q.query<{ id: number | null }>(`select nodeharbor.enqueue_job($1, $2::jsonb, $3, $4::timestamptz, $5, $6) as id`, [
    task,
    JSON.stringify(payload ?? {}),
    opts.key ?? null,
    opts.runAt?.toISOString() ?? null,
    opts.maxAttempts ?? null,
    // No request id of its own: enqueued in a request's transaction, the job takes the request's
    // from the claims statement's headers (nodeharbor.enqueue_job, migration 0035); elsewhere none.
    null,
  ]);
  return rows[0]?.id ?? null;
}

type JobRow = { id: number; task: string; payload: unknown; attempts: number; max_attempts: number; request_id: string | null };
const toJob = (r: JobRow): ClaimedJob => ({
  id: r.id,
  task: r.task,
  payload: r.payload,
  attempts: r.attempts,
  maxAttempts: r.max_attempts,
  requestId: r.request_id,
});

/** Which tasks a claim may take: those named in `tasks`, or (`among: false`) all the others. */
export type TaskFilter = { tasks: readonly string[]; among: boolean };

/**
 * Fails the running jobs whose lease ran out (their worker died) and that had no attempt left,
 * and returns them to the one caller that failed them.
 */
export async function failAbandoned(q: Queryable): Promise<ClaimedJob[]> {
  const { rows } = await q.query<JobRow>(
    `update nodeharbor.jobs
        set status = 'failed', locked_until = null, finished_at = now(),
            last_error = coalesce(last_error || '; ', '') || 'the worker stopped during the last attempt'
      where status = 'running' and locked_until < now() and attempts >= max_attempts
      returning id, task, payload, attempts, max_attempts, request_id`,
  );
  return rows.map(toJob);
}

/**
 * Claims up to `limit` due jobs for `workerId` with FOR UPDATE SKIP LOCKED, so concurrent workers
 * never claim the same job, and leases them for `leaseSeconds`. A running job whose lease ran out
 * (its worker died) is due again if it has an attempt left; one without is failAbandoned's, even
 * when its lease ran out between that call and this one. `only` keeps the claim to one lane's tasks.
 */
export async function claim(
  q: Queryable,
  workerId: string,
  limit: number,
  leaseSeconds: number,
  only: TaskFilter = { tasks: [], among: false },
): Promise<ClaimedJob[]> {
  const { rows } = await q.query<JobRow>(
    `with next as (
       select id from nodeharbor.jobs
        where ((status = 'pending' and run_at <= now())
               or (status = 'running' and locked_until < now() and attempts < max_attempts))
          and (task = any($4::text[])) = $5
        order by run_at, id
        limit $1
        for update skip locked
     )
     update nodeharbor.jobs j
        set status = 'running', attempts = j.attempts + 1, locked_by = $2,
            locked_until = now() + make_interval(secs => $3)
       from next
      where j.id = next.id
     returning j.id, j.task, j.payload, j.attempts, j.max_attempts, j.request_id`,
    [limit, workerId, leaseSeconds, only.tasks, only.among],
  );
  return rows.map(toJob);
}

/** Extends the lease of jobs this worker still runs. */
export async function extendLeases(q: Queryable, workerId: string, ids: number[], leaseSeconds: number): Promise<void> {
  if (ids.length === 0) return;
  await q.query(
    `update nodeharbor.jobs set locked_until = now() + make_interval(secs => $3)
      where id = any($1::bigint[]) and locked_by = $2 and status = 'running'`,
    [ids, workerId, leaseSeconds],
  );
}

/** Marks a job done, if this worker still holds it; locked_by is kept to say who ran it. */
export async function complete(q: Queryable, workerId: string, id: number): Promise<void> {
  await q.query(
    `update nodeharbor.jobs set status = 'done', locked_until = null, finished_at = now()
      where id = $1 and locked_by = $2 and status = 'running'`,
    [id, workerId],
  );
}

/** Longest wait between two attempts. */
const MAX_BACKOFF_SECONDS = 3600;

/** Seconds before attempt `attempts + 1`: 2, 4, 8, ... up to an hour. */
export function backoffSeconds(attempts: number): number {
  return Math.min(2 ** attempts, MAX_BACKOFF_SECONDS);
}

/**
 * Records a failed attempt: the job runs again after an exponential back-off, or is 'failed'
 * once it has used its attempts, or at once when `final` (a retry could not help). True when
 * the job is now failed for good.
 */
export async function fail(q: Queryable, workerId: string, job: ClaimedJob, error: string, final = false): Promise<boolean> {
  const { rows } = await q.query<{ status: string }>(
    `update nodeharbor.jobs
        set status = case when $5 or attempts >= max_attempts then 'failed' else 'pending' end,
            finished_at = case when $5 or attempts >= max_attempts then now() end,
            run_at = now() + make_interval(secs => $3),
            last_error = $4, locked_by = null, locked_until = null
      where id = $1 and locked_by = $2 and status = 'running'
      returning status`,
    [job.id, workerId, backoffSeconds(job.attempts), error.slice(0, 2000), final],
  );
  return rows[0]?.status === 'failed';
}

/**
 * Puts a job back after a passing failure of the database (db-failure.ts): it runs again after
 * `seconds`, and the attempt is not counted, so an outage fails no job for good.
 */
export async function postpone(q: Queryable, workerId: string, job: ClaimedJob, error: string, seconds: number): Promise<void> {
  await q.query(
    `update nodeharbor.jobs
        set status = 'pending', attempts = greatest(attempts - 1, 0), run_at = now() + make_interval(secs => $3),
            last_error = $4, locked_by = null, locked_until = null
      where id = $1 and locked_by = $2 and status = 'running'`,
    [job.id, workerId, seconds, error.slice(0, 2000)],
  );
}

/**
 * Hands jobs this worker still runs back to the queue at once, their attempt not spent: for a
 * worker stopping before they finished, so that another takes them without waiting for the lease
 * to run out. The handler still running here finds the job no longer its own (complete and fail
 * look at locked_by). Returns the ids handed back.
 */
export async function handBack(q: Queryable, workerId: string, ids: readonly number[]): Promise<number[]> {
  if (ids.length === 0) return [];
  const { rows } = await q.query<{ id: number }>(
    `update nodeharbor.jobs
        set status = 'pending', attempts = greatest(attempts - 1, 0), run_at = now(), locked_by = null, locked_until = null
      where id = any($1::bigint[]) and locked_by = $2 and status = 'running'
      returning id`,
    [ids, workerId],
  );
  return rows.map((r) => r.id);
}
