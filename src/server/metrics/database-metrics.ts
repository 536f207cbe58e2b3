import { Gauge, type Registry } from 'prom-client';
import type { ServiceState } from '../../shared/constants';
import { NODE_STATES } from '../../shared/node-health';
import type { Database, DatabaseStats } from '../db/database';
import { classifyDbFailure } from '../db/db-failure';
import type { Logger } from '../http/logger';
import { taskRegistry } from '../jobs/registry';
import type { Lane } from '../jobs/task';
import type { PurchaseStatus } from '../payments/purchases';

const SERVICE_STATES = ['installing', 'active', 'failed', 'suspended', 'expired', 'deleting', 'deleted'] as const satisfies readonly ServiceState[];
const PURCHASE_STATUSES = ['pending', 'completed', 'rejected', 'expired'] as const satisfies readonly PurchaseStatus[];

/** How long a scrape's statement may run (PostgreSQL's statement_timeout, and a wait here for PGlite, which has none). */
export const SCRAPE_TIMEOUT_MS = 2_000;

type Count = { n: number };
type Snapshot = {
  jobs: { task: string; waiting: number; running: number; oldest: number }[];
  failed: ({ task: string } & Count)[];
  services: ({ state: string } & Count)[];
  nodes: ({ state: string } & Count)[];
  payments: ({ status: string } & Count)[];
};

/**
 * Everything /metrics reads from the database, in one statement: the jobs the database holds are
 * the truth however many processes work on them. Waiting jobs are due and unclaimed; their age
 * counts from when they became due. Failed jobs are those that failed for good in the last day.
 */
const SNAPSHOT_SQL = `
  select
    (select coalesce(json_agg(t), '[]'::json) from (
       select task,
              count(*) filter (where status = 'pending' and run_at <= now())::int as waiting,
              count(*) filter (where status = 'running')::int as running,
              coalesce(extract(epoch from now() - min(run_at) filter (where status = 'pending' and run_at <= now())), 0)::float8 as oldest
         from nodeharbor.jobs where status in ('pending', 'running') group by task) t) as jobs,
    (select coalesce(json_agg(t), '[]'::json) from (
       select task, count(*)::int as n from nodeharbor.jobs
        where status = 'failed' and finished_at > now() - interval '1 day' group by task) t) as failed,
    (select coalesce(json_agg(t), '[]'::json) from (
       select state::text as state, count(*)::int as n from private.services group by state) t) as services,
    (select coalesce(json_agg(t), '[]'::json) from (
       select private.node_state_of(s.state, n.state, m.swept_at) as state, count(*)::int as n
         from private.services s
         left join private.node_status n on n.service_id = s.id
         left join private.node_monitor m on true
        where s.state in ('active', 'expired', 'suspended') group by 1) t) as nodes,
    (select coalesce(json_agg(t), '[]'::json) from (
       select status, count(*)::int as n from public.credit_purchases group by status) t) as payments`;

/**
 * Reads the snapshot as the server's own role, in a transaction bounded by `timeoutMs`, so that
 * a slow scrape gives its connection back instead of holding the pool.
 */
async function readSnapshot(db: Database, timeoutMs: number): Promise<Snapshot> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('the metrics query took too long')), timeoutMs);
  });
  try {
    const read = db.batch([
      { sql: `select set_config('statement_timeout', $1, true)`, params: [String(timeoutMs)] },
      { sql: SNAPSHOT_SQL, params: [] },
    ]);
    // PGlite cannot cancel the statement; the scrape still answers in time.
    read.catch(() => {});
    const [, result] = await Promise.race([read, late]);
    return result!.rows[0] as Snapshot;
  } finally {
    clearTimeout(timer);
  }
}

/** Gauges read from the database at each scrape; `refresh` before each exposition. */
export type DatabaseGauges = { refresh(): Promise<void> };

/**
 * Registers the database's gauges: this process's pool on `registries.process`, what is read from
 * the database on `registries.shared`. When the database does not answer a scrape,
 * nodeharbor_database_up is 0 and the gauges read from it are left out, rather than the scrape failing.
 */
export function databaseGauges(
  registries: { process: Registry; shared: Registry },
  db: Database,
  logger: Logger,
  timeoutMs = SCRAPE_TIMEOUT_MS,
): DatabaseGauges {
  const registers = [registries.shared];
  const ofProcess = [registries.process];
  const lanes = new Map<string, Lane>([...taskRegistry.values()].map((t) => [t.name, t.lane]));
  // A task no worker knows is claimed by the upkeep lane (jobs/worker.ts).
  const laneOf = (task: string): Lane => lanes.get(task) ?? 'upkeep';
  const up = new Gauge({ name: 'nodeharbor_database_up', help: 'Whether the database answered this scrape (1) or not (0)', registers });
  const fromDatabase = {
    waiting: new Gauge({ name: 'nodeharbor_jobs_waiting', help: 'Jobs due and not yet claimed, by task and lane', labelNames: ['task', 'lane'], registers }),
    running: new Gauge({ name: 'nodeharbor_jobs_running', help: 'Jobs claimed by a worker now, by task and lane', labelNames: ['task', 'lane'], registers }),
    oldest: new Gauge({
      name: 'nodeharbor_jobs_oldest_waiting_seconds',
      help: 'Seconds since the longest-waiting due job became due, by lane (0: none waits)',
      labelNames: ['lane'],
      registers,
    }),
    failed: new Gauge({
      name: 'nodeharbor_jobs_failed',
      help: 'Jobs that failed for good in the last 24 hours, by task and lane',
      labelNames: ['task', 'lane'],
      registers,
    }),
    services: new Gauge({ name: 'nodeharbor_services', help: 'Services by state', labelNames: ['state'], registers }),
    nodes: new Gauge({
      name: 'nodeharbor_nodes',
      help: "Live services' nodes (active, expired, suspended) by the monitor's state",
      labelNames: ['state'],
      registers,
    }),
    payments: new Gauge({ name: 'nodeharbor_payments', help: 'Credit purchases by status', labelNames: ['status'], registers }),
  };
  // Read at each exposition (prom-client calls `collect`), in whichever process is asked. Only a
  // database with a pool has the pool's: PGlite runs one statement at a time, in this process.
  const fromStats = (name: string, help: string, read: (s: DatabaseStats) => number | undefined) =>
    new Gauge({
      name,
      help,
      registers: ofProcess,
      collect() {
        this.set(read(db.stats?.() ?? {}) ?? 0);
      },
    });
  if (db.stats?.().pool) {
    fromStats('nodeharbor_database_pool_connections', "PostgreSQL pool's open connections", (s) => s.pool?.total);
    fromStats('nodeharbor_database_pool_idle_connections', "PostgreSQL pool's idle connections", (s) => s.pool?.idle);
    fromStats('nodeharbor_database_pool_waiting', 'Statements waiting for a PostgreSQL pool connection', (s) => s.pool?.waiting);
  }
  fromStats('nodeharbor_database_caller_waiting', "Statements waiting for one of their caller's slots (DATABASE_CLIENT_SLOTS)", (s) => s.callersWaiting);

  // Synchronous from the reset to the last value: a scrape running alongside never sees half of them.
  const report = (s: Snapshot | undefined) => {
    const { waiting, running, oldest, failed, services, nodes, payments } = fromDatabase;
    for (const g of Object.values(fromDatabase)) g.reset();
    up.set(s ? 1 : 0);
    if (!s) return;
    // Every known label at 0 first: a state no row is in reads 0, not absent.
    for (const [task, lane] of lanes) {
      waiting.set({ task, lane }, 0);
      running.set({ task, lane }, 0);
      failed.set({ task, lane }, 0);
    }
    const oldestByLane = new Map<Lane, number>([...lanes.values()].map((lane) => [lane, 0]));
    for (const state of SERVICE_STATES) services.set({ state }, 0);
    for (const state of NODE_STATES) nodes.set({ state }, 0);
    for (const status of PURCHASE_STATUSES) payments.set({ status }, 0);
    for (const j of s.jobs) {
      const lane = laneOf(j.task);
      waiting.set({ task: j.task, lane }, j.waiting);
      running.set({ task: j.task, lane }, j.running);
      if (j.waiting > 0) oldestByLane.set(lane, Math.max(oldestByLane.get(lane) ?? 0, j.oldest));
    }
    for (const [lane, seconds] of oldestByLane) oldest.set({ lane }, seconds);
    for (const f of s.failed) failed.set({ task: f.task, lane: laneOf(f.task) }, f.n);
    for (const r of s.services) services.set({ state: r.state }, r.n);
    for (const r of s.nodes) nodes.set({ state: r.state }, r.n);
    for (const r of s.payments) payments.set({ status: r.status }, r.n);
  };

  return {
    async refresh() {
      const snapshot = await readSnapshot(db, timeoutMs).catch((e: unknown) => {
        // An outage is logged once by db/outage-log.ts; anything else is a fault of this query.
        if (!classifyDbFailure(e)) logger.warn('metrics not read from the database', { error: e });
        return undefined;
      });
      report(snapshot);
    },
  };
}
