// Case 7: the node monitor's sweep (issue 16) over 1 000 and 10 000 simulated nodes on PostgreSQL.
// Its round trips must not grow with the node count: the statements per sweep are counted where
// they leave the server's code, and the time they spend in the database is summed.
import type { Database, Queryable, Statement } from '../../src/server/db/database';
import { withEncryptionKeys } from '../../src/server/db/with-encryption-keys';
import { createLogger } from '../../src/server/http/logger';
import { createMailer } from '../../src/server/mail/mailer';
import { createSimulatedDriver, simulateCrash } from '../../src/server/provisioning/drivers/simulated';
import { sweepNodes, type MonitorDeps } from '../../src/server/provisioning/node-monitor';
import { actors, GALA_KEY, TOWN_STAR } from '../lib/seed';
import { percentile } from '../lib/stats';
import type { Target } from '../lib/targets';

export const MONITOR_SIZES = [1_000, 10_000] as const;
/** Nodes that crash between two measured sweeps: some transitions to write, as a real fleet has. */
const CRASHES_PER_SWEEP = 10;

export type MonitorPoint = {
  nodes: number;
  sweeps: number;
  /** Statements sent per sweep, BEGIN and COMMIT included: the fewest and the most seen. */
  statements: { min: number; max: number };
  /** Time spent in the database per sweep (the sum of its statements' round trips), and the sweep's whole time. */
  dbMs: { p50: number; max: number };
  sweepMs: { p50: number; max: number };
};

type Meter = { statements: number; ms: number };

/** Times and counts every statement sent through `q`: a batch's each, and BEGIN and COMMIT around a batch or a transaction. */
function metered<Q extends Queryable>(q: Q, meter: Meter): Q {
  const timed = async <T>(run: () => Promise<T>, count = 1): Promise<T> => {
    const t = performance.now();
    try {
      return await run();
    } finally {
      meter.statements += count;
      meter.ms += performance.now() - t;
    }
  };
  return new Proxy(q, {
    get(target, prop, receiver) {
      if (prop === 'query') return (...args: Parameters<Queryable['query']>) => timed(() => target.query(...args));
      if (prop === 'exec') return (sql: string) => timed(() => target.exec(sql));
      if (prop === 'batch') return (statements: readonly Statement[]) => timed(() => (target as unknown as Database).batch(statements), statements.length + 2);
      if (prop === 'transaction') {
        // BEGIN and COMMIT are two statements of their own; the body's are counted as they run.
        return <T>(fn: (tx: Queryable) => Promise<T>) =>
          (target as unknown as Database).transaction((tx) => {
            meter.statements += 2;
            return fn(metered(tx, meter));
          });
      }
      return Reflect.get(target, prop, receiver) as unknown;
    },
  });
}

/** `nodes` active Town Star services of one bench user, each with a running simulated node. */
async function seedNodes(db: Database, nodes: number): Promise<void> {
  await db.query(
    `with s as (
       insert into private.services (user_id, name, api_key_encrypted, product_id, renews_at, state, unbilled_since)
       select u.id, 'mon-' || g, k.key, $3, now() + interval '20 days', 'active', null
         from auth.users u, generate_series(1, $2::int) g, (select private.encrypt_api_key($4) as key) k
        where u.email = $1
       returning id
     )
     insert into nodeharbor.simulated_nodes (service_id, state, installs) select id, 'running', 1 from s`,
    [actors.reader, nodes, TOWN_STAR, GALA_KEY],
  );
  await db.exec('vacuum analyze');
}

async function removeNodes(db: Database): Promise<void> {
  await db.query(`delete from nodeharbor.simulated_nodes where service_id in (select id from private.services where name like 'mon-%')`);
  await db.query(`delete from private.services where name like 'mon-%'`);
  await db.query('delete from private.node_monitor');
}

/**
 * Seeds `nodes` nodes through `db` (the target opened), runs one sweep that records them all for the first time, then `sweeps`
 * measured sweeps with CRASHES_PER_SWEEP crashes before each; removes what it seeded.
 */
export async function measureMonitor(target: Target, db: Database, nodes: number, sweeps: number): Promise<MonitorPoint> {
  await seedNodes(db, nodes);
  const raw = await target.openRaw();
  try {
    const meter: Meter = { statements: 0, ms: 0 };
    // Counted below the keys: their statement rides with every query, as in the server.
    const q = withEncryptionKeys(metered(raw, meter), target.keys());
    const logger = createLogger('silent');
    const deps: MonitorDeps = {
      db: q,
      logger,
      mailer: createMailer({ db: q, from: 'bench@nodeharbor.test', logger }),
      provisioner: createSimulatedDriver(q, { installSeconds: 0, deleteSeconds: 0 }),
      nodes: { images: {}, installTimeoutSeconds: 600, settleSeconds: 0, monitorIntervalSeconds: 30, downAlertMinutes: 10, alertsPerHour: 5 },
      publicUrl: 'http://127.0.0.1',
    };
    await sweepNodes(deps);
    const ids = (await db.query<{ id: string }>(`select id from private.services where name like 'mon-%' order by id limit $1`, [sweeps * CRASHES_PER_SWEEP]))
      .rows;
    const statements: number[] = [];
    const dbMs: number[] = [];
    const sweepMs: number[] = [];
    for (let i = 0; i < sweeps; i++) {
      for (const { id } of ids.slice(i * CRASHES_PER_SWEEP, (i + 1) * CRASHES_PER_SWEEP)) await simulateCrash(db, id);
      meter.statements = 0;
      meter.ms = 0;
      const t = performance.now();
      await sweepNodes(deps);
      sweepMs.push(performance.now() - t);
      statements.push(meter.statements);
      dbMs.push(meter.ms);
    }
    const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
    return {
      nodes,
      sweeps,
      statements: { min: Math.min(...statements), max: Math.max(...statements) },
      dbMs: { p50: percentile(sorted(dbMs), 50), max: Math.max(...dbMs) },
      sweepMs: { p50: percentile(sorted(sweepMs), 50), max: Math.max(...sweepMs) },
    };
  } finally {
    await raw.close();
    await removeNodes(db);
  }
}
