import { createTestProvider } from '../../src/server/payments/test-provider';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { z } from 'zod';
import type { Database } from '../../src/server/db/database';
import { DbConnectionError } from '../../src/server/db/db-failure';
import { openPostgres } from '../../src/server/db/postgres';
import { createLogger } from '../../src/server/http/logger';
import { claim, enqueue, failAbandoned } from '../../src/server/jobs/queue';
import { defineTask, type JobDeps, type Task } from '../../src/server/jobs/task';
import { taskRegistry } from '../../src/server/jobs/registry';
import { startWorker, type Worker } from '../../src/server/jobs/worker';
import { createMailer } from '../../src/server/mail/mailer';
import { channelsFor } from '../../src/server/notify/channels';
import { createSimulatedDriver } from '../../src/server/provisioning/drivers/simulated';
import { createTestDatabase, type TestDatabase } from '../helpers/database';
import { letTimePass } from '../helpers/wait';
import { queueIsIdle, waitFor } from './helpers';

let t: TestDatabase;
const extraDbs: Database[] = [];
const workers: Worker[] = [];
/** What the test tasks did, in order: "<task>:<n>". */
const runs: string[] = [];

beforeAll(async () => {
  t = await createTestDatabase();
});
afterEach(async () => {
  letGo();
  await Promise.all(workers.splice(0).map((w) => w.stop()));
  held = new Promise<void>((r) => (letGo = r));
  await t.db.query('delete from nodeharbor.jobs');
  runs.length = 0;
});
afterAll(async () => {
  await Promise.all(extraDbs.map((d) => d.close()));
  await t.db.close();
  await t.drop();
});

const n = z.object({ n: z.number() });
/** Holds every 'stuck' job until the test lets them go: installs waiting on a slow engine. */
let letGo: () => void = () => undefined;
let held = new Promise<void>((r) => (letGo = r));
const tasks: ReadonlyMap<string, Task> = new Map(
  [
    defineTask({ name: 'record', lane: 'upkeep', payload: n, run: async ({ n }) => void runs.push(`record:${n}`) }),
    defineTask({
      name: 'slow',
      lane: 'nodes',
      payload: n,
      run: async ({ n }) => {
        runs.push(`slow-start:${n}`);
        await letTimePass(n, 'a job that takes n ms to run (longer than its lease, or still running when its worker stops)');
        runs.push(`slow-end:${n}`);
      },
    }),
    defineTask({
      name: 'broken',
      lane: 'upkeep',
      payload: n,
      run: async ({ n }) => {
        runs.push(`broken:${n}`);
        throw new Error('the relay said no');
      },
      onFailed: async ({ n }, _deps, error) => void runs.push(`gave-up:${n}:${error}`),
    }),
    defineTask({
      name: 'flaky',
      lane: 'upkeep',
      payload: n,
      run: async ({ n }) => {
        runs.push(`flaky:${n}`);
        if (runs.filter((r) => r === `flaky:${n}`).length === 1) throw new Error('first try fails');
      },
    }),
    defineTask({
      name: 'stuck',
      lane: 'nodes',
      payload: n,
      run: async ({ n }) => {
        runs.push(`stuck:${n}`);
        await held;
      },
    }),
    defineTask({ name: 'tick', lane: 'upkeep', payload: z.object({}), run: async () => void runs.push('tick') }),
    defineTask({
      name: 'outage',
      lane: 'upkeep',
      payload: n,
      run: async ({ n }) => {
        runs.push(`outage:${n}`);
        // What the PostgreSQL adapter throws when its connection is lost.
        throw new Error('could not read the node', { cause: new DbConnectionError('08006', 'Connection terminated unexpectedly') });
      },
      onFailed: async ({ n }) => void runs.push(`gave-up:${n}`),
    }),
  ].map((task) => [task.name, task as Task]),
);

function deps(db: Database): JobDeps {
  const logger = createLogger('silent');
  return {
    db,
    logger,
    mailer: createMailer({ db, from: 'test@nodeharbor.test', logger }),
    provisioner: createSimulatedDriver(db, { installSeconds: 0, deleteSeconds: 0 }),
    suspensionDays: 14,
    nodes: { images: {}, installTimeoutSeconds: 600, settleSeconds: 0, monitorIntervalSeconds: 30, downAlertMinutes: 10, alertsPerHour: 5 },
    payments: createTestProvider(db),
    seller: { name: 'NodeHarbor', address: null, taxId: null },
    publicUrl: 'http://127.0.0.1',
    channels: channelsFor({
      outbound: { allow: [], discordApiOrigin: 'https://discord.com', telegramApiUrl: 'https://api.telegram.org', telegramBotToken: undefined },
    }),
  };
}
function worker(db: Database = t.db, opts: { leaseSeconds?: number; concurrency?: number; schedules?: { task: string; everySeconds: number }[] } = {}): Worker {
  const concurrency = opts.concurrency ?? 2;
  const w = startWorker(deps(db), {
    concurrency: { nodes: concurrency, upkeep: concurrency },
    pollMs: 20,
    leaseSeconds: opts.leaseSeconds ?? 30,
    tasks,
    schedules: opts.schedules ?? [],
  });
  workers.push(w);
  return w;
}
/**
 * A job enqueued now has run: a sign that the workers have looked at the queue again since, in
 * place of a wait for a time that only guesses how long a poll takes.
 */
async function anotherTurn(n: number) {
  await enqueue(t.db, 'record', { n });
  await waitFor(`record:${n} to run`, async () => runs.includes(`record:${n}`));
}
async function job(id: number) {
  const { rows } = await t.db.query<{ status: string; attempts: number; wait: number; last_error: string | null; finished: boolean }>(
    `select status, attempts, extract(epoch from run_at - now())::float8 as wait, last_error, finished_at is not null as finished
       from nodeharbor.jobs where id = $1`,
    [id],
  );
  return rows[0]!;
}

it('enqueues once per key, and not at all when the transaction rolls back', async () => {
  expect(await enqueue(t.db, 'record', { n: 1 }, { key: 'once' })).toEqual(expect.any(Number));
  expect(await enqueue(t.db, 'record', { n: 2 }, { key: 'once' })).toBeNull();
  await expect(
    t.db.transaction(async (tx) => {
      await enqueue(tx, 'record', { n: 3 });
      throw new Error('the change failed');
    }),
  ).rejects.toThrow('the change failed');
  worker();
  await waitFor('the queue to drain', () => queueIsIdle(t.db));
  expect(runs).toEqual(['record:1']);
});

it('runs a delayed job only when its time has come', async () => {
  await enqueue(t.db, 'record', { n: 1 }, { runAt: new Date(Date.now() + 1500) });
  worker();
  // Two looks at the queue that took what was due, and left the delayed job.
  await anotherTurn(2);
  await anotherTurn(3);
  expect(runs).toEqual(['record:2', 'record:3']);
  await waitFor('the delayed job', async () => runs.length === 3, 5000);
  expect(runs).toEqual(['record:2', 'record:3', 'record:1']);
});

it('retries a failing job with exponential back-off, then leaves it failed', async () => {
  const id = (await enqueue(t.db, 'broken', { n: 1 }, { maxAttempts: 3 }))!;
  worker();
  for (const attempt of [1, 2]) {
    const j = await waitFor(`attempt ${attempt}`, async () => {
      const j = await job(id);
      return j.attempts === attempt && j.status === 'pending' ? j : undefined;
    });
    // 2 s after the first failure, 4 s after the second.
    expect(j.wait).toBeGreaterThan(2 ** attempt - 1);
    expect(j.wait).toBeLessThanOrEqual(2 ** attempt);
    expect(j.last_error).toBe('the relay said no');
    await t.db.query('update nodeharbor.jobs set run_at = now() where id = $1', [id]);
  }
  await waitFor('the failure', async () => (await job(id)).status === 'failed');
  expect(await job(id)).toMatchObject({ attempts: 3, finished: true });
  await waitFor('the give-up', async () => runs.includes('gave-up:1:the relay said no'));
  // And nothing more of it at the worker's next look at the queue.
  await anotherTurn(9);
  expect(runs).toEqual(['broken:1', 'broken:1', 'broken:1', 'gave-up:1:the relay said no', 'record:9']);
});

it('puts a job back, its attempt not counted, when the database fails it in passing', async () => {
  const id = (await enqueue(t.db, 'outage', { n: 1 }, { maxAttempts: 1 }))!;
  worker();
  const j = await waitFor('the job back in the queue', async () => {
    const j = await job(id);
    return j.status === 'pending' && j.last_error ? j : undefined;
  });
  // Its only attempt is still to come, a while later.
  expect(j).toMatchObject({ attempts: 0, finished: false, last_error: 'could not read the node' });
  expect(j.wait).toBeGreaterThan(5);
  expect(runs).toEqual(['outage:1']);
});

it('fails at once a job of an unknown task or with an invalid payload: no retry could help', async () => {
  const unknown = (await enqueue(t.db, 'no-such-task', {}))!;
  const invalid = (await enqueue(t.db, 'record', { n: 'one' }))!;
  worker();
  await waitFor('both failures', async () => (await job(unknown)).status === 'failed' && (await job(invalid)).status === 'failed');
  expect(await job(unknown)).toMatchObject({ attempts: 1, last_error: 'no task named no-such-task' });
  expect(await job(invalid)).toMatchObject({ attempts: 1, last_error: expect.stringMatching(/^invalid payload/) });
  expect(runs).toEqual([]);
});

it('completes a job that fails once on its second attempt', async () => {
  const id = (await enqueue(t.db, 'flaky', { n: 7 }))!;
  worker();
  await waitFor('the retry', async () => (await job(id)).status === 'pending' && (await job(id)).attempts === 1);
  await t.db.query('update nodeharbor.jobs set run_at = now() where id = $1', [id]);
  await waitFor('the job', async () => (await job(id)).status === 'done');
  expect(runs).toEqual(['flaky:7', 'flaky:7']);
});

it('takes over a job whose worker died once its lease runs out, and fails one that had no attempt left', async () => {
  const id = (await enqueue(t.db, 'record', { n: 1 }))!;
  const last = (await enqueue(t.db, 'broken', { n: 2 }, { maxAttempts: 1 }))!;
  // A worker claims both and dies (no heartbeat, no completion).
  const claimed = await t.db.transaction((tx) => claim(tx, 'dead-worker', 10, 1));
  expect(claimed.map((j) => j.id).sort()).toEqual([id, last].sort());
  worker();
  // The live worker looks at the queue while the dead one's lease (1 s) holds: it leaves both.
  await anotherTurn(9);
  expect(runs).toEqual(['record:9']);
  await waitFor('the takeover', async () => (await job(id)).status === 'done', 5000);
  expect(await job(id)).toMatchObject({ attempts: 2 });
  expect(await job(last)).toMatchObject({ status: 'failed', attempts: 1, last_error: 'the worker stopped during the last attempt' });
  await waitFor('the give-up', async () => runs.includes('gave-up:2:the worker stopped during the last attempt'));
  expect(runs.sort()).toEqual(['gave-up:2:the worker stopped during the last attempt', 'record:1', 'record:9']);
});

it('never claims an abandoned job that has no attempt left, even when its lease runs out just before the claim', async () => {
  const last = (await enqueue(t.db, 'broken', { n: 3 }, { maxAttempts: 1 }))!;
  await t.db.transaction((tx) => claim(tx, 'dead-worker', 10, 1));
  await waitFor(
    'the lease to run out',
    async () => (await t.db.query('select 1 from nodeharbor.jobs where id = $1 and locked_until < now()', [last])).rows.length === 1,
    5000,
  );
  // A worker's loop fails abandoned jobs, then claims: the lease may run out between the two.
  expect(await t.db.transaction((tx) => claim(tx, 'next-worker', 10, 30))).toEqual([]);
  expect((await failAbandoned(t.db)).map((j) => j.id)).toEqual([last]);
  expect(await job(last)).toMatchObject({ status: 'failed', attempts: 1 });
});

it('keeps the lease of a job that runs longer than it, so no other worker runs it too', async () => {
  await enqueue(t.db, 'slow', { n: 2500 });
  worker(t.db, { leaseSeconds: 1 });
  worker(t.db, { leaseSeconds: 1 });
  await waitFor('the slow job', () => queueIsIdle(t.db), 10_000);
  expect(runs).toEqual(['slow-start:2500', 'slow-end:2500']);
});

it('stops gracefully: the running handler finishes and its job is done', async () => {
  const id = (await enqueue(t.db, 'slow', { n: 600 }))!;
  const w = worker();
  await waitFor('the handler to start', async () => runs.includes('slow-start:600'));
  await w.stop();
  expect(runs).toEqual(['slow-start:600', 'slow-end:600']);
  expect((await job(id)).status).toBe('done');
  expect(w.alive()).toBe(false);
  await enqueue(t.db, 'record', { n: 1 });
  await letTimePass(200, 'a stopped worker claims nothing: ten of its polls (pollMs 20) go by');
  expect(runs).not.toContain('record:1');
});

it('never runs one job twice with two workers on their own connections', async () => {
  // On PostgreSQL each worker gets its own pool, as two processes would; PGlite has one connection.
  const second = t.url ? await openPostgres(t.url, 4) : t.db;
  if (second !== t.db) extraDbs.push(second);
  const count = 200;
  await t.db.transaction(async (tx) => {
    for (let i = 0; i < count; i++) await enqueue(tx, 'slow', { n: i % 7 });
  });
  worker(t.db, { concurrency: 4 });
  worker(second, { concurrency: 4 });
  await waitFor('every job', () => queueIsIdle(t.db), 60_000);
  const { rows } = await t.db.query<{ status: string; attempts: number; locked_by: string }>('select status, attempts, locked_by from nodeharbor.jobs');
  expect(rows).toHaveLength(count);
  expect(rows.filter((r) => r.status !== 'done' || r.attempts !== 1)).toEqual([]);
  expect(runs.filter((r) => r.startsWith('slow-start'))).toHaveLength(count);
  // Both took part: the test is about sharing, not about one worker doing everything.
  expect(new Set(rows.map((r) => r.locked_by)).size).toBe(2);
});

it('runs upkeep (a renewal, a mail) at once behind a thousand node jobs held up by the engine', async () => {
  await t.db.query(
    `insert into nodeharbor.jobs (task, payload, run_at) select 'stuck', jsonb_build_object('n', i), now() - interval '1 minute' from generate_series(1, 1000) i`,
  );
  await enqueue(t.db, 'record', { n: 1 });
  worker();
  await waitFor('the upkeep job', async () => runs.includes('record:1'), 10_000);
  // Only the node lane's two slots hold node jobs; the other 998 still wait, and nothing else was held up.
  expect(runs.filter((r) => r.startsWith('stuck:'))).toHaveLength(2);
  const { rows } = await t.db.query<{ pending: number }>(`select count(*)::int as pending from nodeharbor.jobs where task = 'stuck' and status = 'pending'`);
  expect(rows[0]!.pending).toBe(998);
});

it('puts the jobs that wait on the engine in the node lane, and renewals, payments, mail and monitoring in upkeep', () => {
  const lanes = Object.fromEntries([...taskRegistry.values()].map((task) => [task.name, task.lane]));
  expect(
    Object.keys(lanes)
      .filter((name) => lanes[name] === 'nodes')
      .sort(),
  ).toEqual(['install-service', 'power-node', 'start-service', 'stop-service', 'uninstall-service', 'update-node-key']);
  for (const name of ['renewal-sweep', 'renew-service', 'reconcile-purchases', 'send-email', 'send-recovery', 'monitor-nodes'])
    expect(lanes[name]).toBe('upkeep');
});

it('schedules a recurring task once per period, however many workers run', async () => {
  const schedules = [{ task: 'tick', everySeconds: 3600 }];
  // Five node jobs held up in the engine, more than two workers' node slots (2 each) can take:
  // once all five run, every one of the three workers has had its first turn, where it
  // enqueues the schedules before it claims.
  await t.db.query(`insert into nodeharbor.jobs (task, payload) select 'stuck', jsonb_build_object('n', i) from generate_series(1, 5) i`);
  worker(t.db, { schedules });
  worker(t.db, { schedules });
  worker(t.db, { schedules });
  await waitFor('the tick', async () => runs.includes('tick'));
  await waitFor('every worker to have claimed', async () => runs.filter((r) => r.startsWith('stuck:')).length === 5);
  const { rows } = await t.db.query<{ key: string }>(`select key from nodeharbor.jobs where task = 'tick'`);
  expect(rows).toHaveLength(1);
  expect(rows[0]!.key).toMatch(/^tick:\d{4}-\d\d-\d\dT\d\d:00:00$/);
  expect(runs.filter((r) => !r.startsWith('stuck:'))).toEqual(['tick']);
  const { rows: claimers } = await t.db.query<{ n: number }>(`select count(distinct locked_by)::int as n from nodeharbor.jobs where task = 'stuck'`);
  expect(claimers[0]!.n).toBe(3);
});
