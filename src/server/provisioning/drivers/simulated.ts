import type { Database, Queryable } from '../../db/database';
import type { NodeObservation, NodeStatus, NodeUsage, Provisioner } from '../provisioner';

export type SimulatedDriverOptions = {
  installSeconds: number;
  deleteSeconds: number;
  /** SIMULATED_NODE_FAULTS: at each look (the monitor's sweep), this percentage of running nodes crash, and a tenth of it go offline for OUTAGE_MINUTES. */
  faultPercent?: number;
  /** How an install or a deletion waits its seconds: a timer, or a test's clock. */
  sleep?: (seconds: number) => Promise<void>;
};

/** A crashed node is started again after this long, as Swarm's restart delay does. */
export const SIMULATED_RESTART_SECONDS = 5;
/** How long a simulated outage keeps a node offline. */
const OUTAGE_MINUTES = 15;
/** Every simulated node prints a heartbeat this often. */
const HEARTBEAT_SECONDS = 30;
/** The simulated nodes are spread over a few made-up hosts, so the fleet view has something to show. */
const HOSTS = 3;

const timerSleep = (seconds: number) => new Promise<void>((r) => setTimeout(r, seconds * 1000));

type NodeRow = { service_id: string; state: 'running' | 'stopped'; updated_at: Date };

/** A node's memory limit when its row has none (one written before migration 0049). */
const DEFAULT_MEMORY_MB = 1024;

/** A number in [0, 1) of a text, the same for the same text: each node's own phase and jitter. */
function unitHash(text: string): number {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  return (h >>> 0) / 2 ** 32;
}

/**
 * What a simulated node uses at `nowMs`: slow waves (an hour, a few minutes) with a node's own
 * phase and a little jitter per minute, so that the charts of `npm start` look like a node's and
 * two reads in one minute agree. Its memory grows over its first 10 minutes, as a node syncing
 * does; its network counters are the integral of a rate that never falls below half its mean, so
 * they only grow within a run.
 */
export function simulatedUsage(node: { serviceId: string; task: number; startedAt: Date; memoryMb: number | null }, nowMs: number): NodeUsage {
  const phase = unitHash(node.serviceId);
  const t = nowMs / 1000;
  const wave = (period: number, shift = 0) => Math.sin(2 * Math.PI * (t / period + phase + shift));
  const jitter = unitHash(`${node.serviceId}:${Math.floor(t / 60)}`) - 0.5;
  const cpuPercent = Math.max(0.5, 18 + 12 * wave(3600) + 6 * wave(420, 0.3) + 8 * jitter);
  const limit = (node.memoryMb ?? DEFAULT_MEMORY_MB) * 1024 * 1024;
  const up = Math.max(0, t - node.startedAt.getTime() / 1000);
  const memoryBytes = limit * (0.3 + 0.08 * wave(7200, 0.1) + 0.12 * Math.min(1, up / 600) + 0.02 * jitter);
  // ∫ a + (a/2)·sin(ωx + φ) dx over the run, in bytes.
  const counter = (mean: number, period: number) => {
    const w = (2 * Math.PI) / period;
    const at = (x: number) => mean * x - (mean / 2 / w) * Math.cos(w * x + 2 * Math.PI * phase);
    return Math.round(at(up) - at(0));
  };
  return {
    serviceId: node.serviceId,
    run: `sim-${node.task}`,
    cpuPercent,
    memoryBytes: Math.round(memoryBytes),
    memoryLimitBytes: limit,
    rxBytes: counter(20_000 + 40_000 * phase, 1800),
    txBytes: counter(8_000 + 15_000 * phase, 2400),
  };
}

/**
 * A crash, for an UPDATE of simulated_nodes whose $2 is SIMULATED_RESTART_SECONDS: the run ends as
 * a kill -9 would (exit code 137), and the next starts after the restart delay.
 */
const CRASH = `set task = task + 1, exit_code = 137, restarting_until = now() + make_interval(secs => $2),
                   started_at = now() + make_interval(secs => $2)`;

/** A running node's current run ends as a kill -9 would (exit code 137), and the next starts after SIMULATED_RESTART_SECONDS. */
export async function simulateCrash(db: Queryable, serviceId: string): Promise<void> {
  await db.query(`update nodeharbor.simulated_nodes ${CRASH} where service_id = $1 and state = 'running'`, [serviceId, SIMULATED_RESTART_SECONDS]);
}

/** A node goes offline (its host lost, say) for `minutes`, or comes back at once with 0. */
export async function simulateOutage(db: Queryable, serviceId: string, minutes: number): Promise<void> {
  await db.query(
    `update nodeharbor.simulated_nodes
        set offline_until = case when $2 > 0 then now() + make_interval(mins => $2) end,
            started_at = case when $2 > 0 then now() + make_interval(mins => $2) else now() end
      where service_id = $1`,
    [serviceId, minutes],
  );
}

/**
 * A provisioner that runs nothing: installing and deleting take the configured time, and the
 * node's state is kept in nodeharbor.simulated_nodes, so it survives a restart as a real node would.
 * Its nodes are online unless made to fail (simulateCrash, simulateOutage, `faultPercent`), they
 * print a start banner and a heartbeat, and they use made-up CPU, memory and network within their
 * limits (simulatedUsage). It stores nothing of the node spec but its id and memory limit: the key is never stored (the banner reads it from the service, as a careless node prints its config,
 * so that the embedded default shows the logs' redaction at work).
 */
export function createSimulatedDriver(db: Database, opts: SimulatedDriverOptions): Provisioner {
  const find = async (serviceId: string): Promise<NodeRow | undefined> =>
    (await db.query<NodeRow>('select service_id, state, updated_at from nodeharbor.simulated_nodes where service_id = $1', [serviceId])).rows[0];
  const status = async (serviceId: string): Promise<NodeStatus> => (await find(serviceId))?.state ?? 'absent';
  const setState = (serviceId: string, state: 'running' | 'stopped') =>
    db.query(
      `update nodeharbor.simulated_nodes set state = $2, updated_at = now(), started_at = now(), restarting_until = null
        where service_id = $1 and state <> $2`,
      [serviceId, state],
    );
  const faults = opts.faultPercent ?? 0;
  const sleep = opts.sleep ?? timerSleep;
  return {
    status,
    async install(node) {
      if ((await status(node.serviceId)) !== 'absent') return;
      await sleep(opts.installSeconds);
      await db.query(
        `insert into nodeharbor.simulated_nodes (service_id, state, installs, memory_mb) values ($1, 'running', 1, $2)
         on conflict (service_id) do update set state = 'running', installs = simulated_nodes.installs + 1, updated_at = now(),
                                                task = simulated_nodes.task + 1, started_at = now(), restarting_until = null,
                                                memory_mb = excluded.memory_mb`,
        [node.serviceId, node.memoryMb],
      );
    },
    // The banner reads the key from the service: a new run is what a node handed a new key shows.
    async updateKey(node) {
      await db.query(
        `update nodeharbor.simulated_nodes set task = task + 1, updated_at = now(), restarting_until = null,
                started_at = case when state = 'running' then now() else started_at end
          where service_id = $1`,
        [node.serviceId],
      );
    },
    // A new run at once, as a restart on request is: no exit code of a crash, no restart delay.
    async restart(serviceId) {
      await db.query(
        `update nodeharbor.simulated_nodes set task = task + 1, updated_at = now(), started_at = now(), restarting_until = null
          where service_id = $1 and state = 'running'`,
        [serviceId],
      );
    },
    async uninstall(serviceId) {
      if ((await status(serviceId)) === 'absent') return;
      await sleep(opts.deleteSeconds);
      await db.query('delete from nodeharbor.simulated_nodes where service_id = $1', [serviceId]);
    },
    async stop(serviceId) {
      await setState(serviceId, 'stopped');
    },
    async start(serviceId) {
      await setState(serviceId, 'running');
    },
    async health(serviceId) {
      const node = await find(serviceId);
      if (!node) return { state: 'absent' };
      return node.state === 'running' ? { state: 'running', since: node.updated_at } : { state: 'stopped' };
    },
    async list() {
      const { rows } = await db.query<NodeRow>('select service_id, state, updated_at from nodeharbor.simulated_nodes order by service_id');
      return rows.map((r) => ({ serviceId: r.service_id, status: r.state }));
    },
    async observe() {
      if (faults > 0) {
        await db.query(
          `update nodeharbor.simulated_nodes ${CRASH}
            where state = 'running' and coalesce(restarting_until, '-infinity') < now() and coalesce(offline_until, '-infinity') < now()
              and random() * 100 < $1`,
          [faults, SIMULATED_RESTART_SECONDS],
        );
        await db.query(
          `update nodeharbor.simulated_nodes set offline_until = now() + make_interval(mins => $2), started_at = now() + make_interval(mins => $2)
            where state = 'running' and coalesce(offline_until, '-infinity') < now() and coalesce(restarting_until, '-infinity') < now()
              and random() * 1000 < $1`,
          [faults, OUTAGE_MINUTES],
        );
      }
      const { rows } = await db.query<NodeObservation>(
        `select service_id as "serviceId",
                case when state = 'stopped' then 'stopped' when offline_until > now() then 'offline'
                     when restarting_until > now() then 'restarting' else 'online' end as state,
                'sim-' || left(service_id::text, 8) || '-' || task as "taskId",
                'simulated-host-' || (abs(hashtext(service_id::text)) % $1 + 1) as host,
                exit_code as "exitCode",
                case when state = 'running' and offline_until > now() then 'simulated outage: the host does not answer'
                     when state = 'running' and restarting_until > now() then 'task: non-zero exit (137)' end as reason
           from nodeharbor.simulated_nodes`,
        [HOSTS],
      );
      return rows;
    },
    // One query, whatever the number of nodes: only the budget's deadline concerns it.
    async usage({ deadline }) {
      if (deadline.aborted) return [];
      const { rows } = await db.query<{ service_id: string; task: number; started_at: Date; memory_mb: number | null }>(
        `select service_id, task, started_at, memory_mb from nodeharbor.simulated_nodes
          where state = 'running' and started_at <= now()
            and coalesce(offline_until, '-infinity') < now() and coalesce(restarting_until, '-infinity') < now()`,
      );
      const now = Date.now();
      return rows.map((r) => simulatedUsage({ serviceId: r.service_id, task: r.task, startedAt: r.started_at, memoryMb: r.memory_mb }, now));
    },
    async logs(serviceId, tail) {
      const { rows } = await db.query<{ task: number; started_at: Date; key: string | null; exit_code: number | null; beats: number }>(
        `select n.task, n.started_at, n.exit_code,
                case when s.id is not null then private.decrypt_with_either_key(s.api_key_encrypted) end as key,
                greatest(0, floor(extract(epoch from now() - n.started_at) / $2))::int as beats
           from nodeharbor.simulated_nodes n
           left join private.services s on s.id = n.service_id
          where n.service_id = $1 and n.state = 'running'`,
        [serviceId, HEARTBEAT_SECONDS],
      );
      const node = rows[0];
      if (!node) return [];
      const at = (seconds: number) => new Date(node.started_at.getTime() + seconds * 1000).toISOString();
      const lines: string[] = [];
      if (node.task > 1 && node.exit_code !== null) lines.push(`${at(-SIMULATED_RESTART_SECONDS)} run ${node.task - 1} ended with exit code ${node.exit_code}`);
      // A node waiting to be started again (a crash, an outage) has not printed its banner yet.
      if (node.started_at.getTime() <= Date.now()) {
        lines.push(`${at(0)} NodeHarbor simulated node starting (run ${node.task})`);
        if (node.key !== null) lines.push(`${at(0)} config: key=${node.key}`);
      }
      const first = Math.max(1, node.beats - tail + 1);
      for (let i = first; i <= node.beats; i++) lines.push(`${at(i * HEARTBEAT_SECONDS)} heartbeat ${i}: synced, 8 peers`);
      return lines.slice(-tail);
    },
  };
}
