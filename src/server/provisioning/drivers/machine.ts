import type { Database } from '../../db/database';
import { ProviderError, type Machine, type MachineProvider } from '../machines/provider';
import { prepareMachine } from '../machines/machine-tokens';
import { NodeCannotRun } from '../node-spec';
import type { EngineNode, NodeHealth, NodeObservation, NodeSpec, NodeStatus, Provisioner } from '../provisioner';

export type MachineDriverOptions = {
  /** The boot script of a new server, holding its one-time bootstrap token and no secret else. */
  userData: (bootstrapToken: string) => string;
  /** The operator's SSH keys and firewalls for every server (MACHINE_SSH_KEYS, MACHINE_FIREWALLS). */
  sshKeys: readonly string[];
  firewalls: readonly string[];
  /** How often agents report (MACHINE_HEARTBEAT_SECONDS): a report older than two periods counts for nothing. */
  heartbeatSeconds: number;
  /** The longest wait for a provider's rate limit to reset before the job is retried instead. */
  maxRateLimitWaitMs?: number;
};

/** Every server of ours carries it, so that one list call finds them all. */
const MANAGED = { 'managed-by': 'nodeharbor' } as const;
const SERVICE_LABEL = 'nodeharbor.service_id';

type MachineRow = {
  service_id: string;
  server_id: string | null;
  location: string | null;
  bootstrap_claimed_at: Date | null;
  boot_error: string | null;
  agent_state: 'starting' | 'running' | 'stopped' | 'refused' | null;
  agent_error: string | null;
  agent_logs: string[];
  running_since: Date | null;
  last_heartbeat_at: Date | null;
  powered_off: boolean;
};

/** What the driver reads of a machine's row (MachineRow). */
const MACHINE_COLUMNS =
  'service_id, server_id, location, bootstrap_claimed_at, boot_error, agent_state, agent_error, agent_logs, running_since, last_heartbeat_at, powered_off';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Runs each node on a cloud server of its own (issue 35; docs/decisions/036): the provider places,
 * boots, powers and deletes the servers, found by our labels; the node's health is what its
 * agent last reported (node-heartbeat), and the key reaches it only through node-bootstrap and
 * node-key. A product's locations are tried in order when one has no capacity.
 */
export function createMachineDriver(db: Database, provider: MachineProvider, opts: MachineDriverOptions): Provisioner {
  const maxWait = opts.maxRateLimitWaitMs ?? 60_000;
  // A heartbeat older than this means the node is not known to run (two missed).
  const staleMs = opts.heartbeatSeconds * 2 * 1000;

  async function row(serviceId: string): Promise<MachineRow | undefined> {
    const { rows } = await db.query<MachineRow>(`select ${MACHINE_COLUMNS} from private.machines where service_id = $1`, [serviceId]);
    return rows[0];
  }

  const ours = (serviceId: string) => provider.list({ ...MANAGED, [SERVICE_LABEL]: serviceId });

  /** A provider call, again after a rate limit's reset when that is near; a far one is the job's to retry. */
  async function patiently<T>(call: () => Promise<T>): Promise<T> {
    for (;;) {
      try {
        return await call();
      } catch (e) {
        if (!(e instanceof ProviderError) || e.kind !== 'rate_limited') throw e;
        const wait = (e.retryAt?.getTime() ?? Date.now() + 1000) - Date.now();
        if (wait > maxWait) throw e;
        await sleep(Math.max(0, wait));
      }
    }
  }

  async function create(spec: NodeSpec): Promise<Machine> {
    const settings = spec.machine;
    if (!settings) throw new NodeCannotRun(`${spec.product} does not run on machines of its own.`);
    const token = await prepareMachine(db, spec.serviceId, provider.name);
    const full: string[] = [];
    for (const location of settings.locations) {
      try {
        return await patiently(() =>
          provider.create({
            name: `nh-${spec.serviceId.slice(0, 12)}`,
            serverType: settings.serverType,
            image: settings.image,
            location,
            userData: opts.userData(token),
            labels: { ...MANAGED, [SERVICE_LABEL]: spec.serviceId, 'nodeharbor.user_id': spec.userId, 'nodeharbor.product': spec.product },
            sshKeys: opts.sshKeys,
            firewalls: opts.firewalls,
          }),
        );
      } catch (e) {
        if (!(e instanceof ProviderError)) throw e;
        if (e.kind === 'capacity') {
          full.push(`${location}: ${e.message}`);
          continue;
        }
        if (e.kind === 'invalid' || e.kind === 'unauthorized') throw new NodeCannotRun(`The cloud provider refused the server: ${e.message}`);
        throw e;
      }
    }
    throw new NodeCannotRun(`No ${settings.serverType} server is available in ${settings.locations.join(', ')} (${full.join('; ')})`);
  }

  async function record(serviceId: string, m: Machine): Promise<void> {
    await db.query('update private.machines set server_id = $2, location = $3, ipv4 = $4, powered_off = $5 where service_id = $1', [
      serviceId,
      m.id,
      m.location,
      m.ipv4,
      m.status === 'off',
    ]);
  }

  async function serverOf(serviceId: string): Promise<string | undefined> {
    return (await row(serviceId))?.server_id ?? (await ours(serviceId))[0]?.id;
  }

  async function power(serviceId: string, on: boolean): Promise<void> {
    const id = await serverOf(serviceId);
    if (!id) return;
    await patiently(() => (on ? provider.powerOn(id) : provider.powerOff(id)));
    await db.query('update private.machines set powered_off = $2 where service_id = $1', [serviceId, !on]);
  }

  /** The node as its agent reported it; stale reports count for nothing. */
  function agentView(r: MachineRow): { running: Date | null; reason: string } {
    const fresh = r.last_heartbeat_at !== null && Date.now() - r.last_heartbeat_at.getTime() <= staleMs;
    if (fresh && r.agent_state === 'running' && r.running_since) return { running: r.running_since, reason: '' };
    if (!r.bootstrap_claimed_at) return { running: null, reason: 'the server has not claimed its key yet' };
    if (!r.last_heartbeat_at) return { running: null, reason: 'the node has not reported yet' };
    if (!fresh) return { running: null, reason: `no report from the node for ${Math.round((Date.now() - r.last_heartbeat_at.getTime()) / 1000)} s` };
    return { running: null, reason: `the node reports ${r.agent_state ?? 'nothing'}` };
  }

  return {
    async install(spec) {
      // A server the provider made although its create call failed (an action that timed out) is kept.
      const [made] = await ours(spec.serviceId);
      if (made) {
        if (!(await row(spec.serviceId))?.server_id) await record(spec.serviceId, made);
        return;
      }
      await record(spec.serviceId, await create(spec));
    },

    async updateKey(spec) {
      await db.query('update private.machines set key_pending = true where service_id = $1', [spec.serviceId]);
    },

    async uninstall(serviceId) {
      const ids = new Set((await ours(serviceId)).map((m) => m.id));
      const recorded = (await row(serviceId))?.server_id;
      if (recorded) ids.add(recorded);
      for (const id of ids) await patiently(() => provider.delete(id));
      await db.query('delete from private.machines where service_id = $1', [serviceId]);
    },

    // NOTE: Stop and Start power the server off and on, as a suspension does, rather than asking the
    // agent to stop gala-node: a powered-off server is stopped whatever its agent or Gala's software
    // do, the provider says so in one list call (the monitor's and the reconciler's), a reboot cannot
    // undo it, and Hetzner bills a server that is off all the same. A restart keeps the machine up:
    // the agent restarts gala-node at its next heartbeat (nodes/agent, "restart"), which is faster
    // than a reboot and keeps the node's machine id.
    stop: (serviceId) => power(serviceId, false),
    start: (serviceId) => power(serviceId, true),

    async restart(serviceId) {
      // Once per heartbeat: two restarts asked before the agent's next report are one.
      await db.query(
        `update private.machines set commands = array_append(commands, 'restart')
          where service_id = $1 and server_id is not null and not powered_off and not ('restart' = any(commands))`,
        [serviceId],
      );
    },

    async status(serviceId): Promise<NodeStatus> {
      const r = await row(serviceId);
      if (!r?.server_id) return 'absent';
      return r.powered_off ? 'stopped' : 'running';
    },

    async health(serviceId): Promise<NodeHealth> {
      const r = await row(serviceId);
      if (!r?.server_id) return { state: 'absent' };
      if (r.powered_off) return { state: 'stopped' };
      if (r.boot_error) return { state: 'failing', reason: `The server could not set the node up: ${r.boot_error}`, inTheNodesWords: true };
      if (r.agent_state === 'refused')
        return { state: 'failing', reason: `Gala refused this API key: ${r.agent_error ?? 'no reason given'}`, inTheNodesWords: true, cause: 'key_refused' };
      const view = agentView(r);
      return view.running ? { state: 'running', since: view.running } : { state: 'starting', reason: view.reason };
    },

    async list(): Promise<EngineNode[]> {
      const servers = await patiently(() => provider.list(MANAGED));
      return servers
        .filter((m) => m.labels[SERVICE_LABEL])
        .map((m) => ({ serviceId: m.labels[SERVICE_LABEL]!, status: m.status === 'off' ? 'stopped' : 'running' }));
    },

    async observe(): Promise<NodeObservation[]> {
      const servers = await patiently(() => provider.list(MANAGED));
      const ids = servers.map((m) => m.labels[SERVICE_LABEL]).filter((id): id is string => Boolean(id));
      const { rows } = await db.query<MachineRow>(`select ${MACHINE_COLUMNS} from private.machines where service_id::text = any($1::text[])`, [ids]);
      const rowsById = new Map(rows.map((r) => [r.service_id, r]));
      return servers.flatMap((m): NodeObservation[] => {
        const serviceId = m.labels[SERVICE_LABEL];
        if (!serviceId) return [];
        const r = rowsById.get(serviceId);
        // What the admin fleet shows of where a node runs: the provider, the location, the address.
        const host = [provider.name, m.location, m.ipv4].filter(Boolean).join(' ');
        if (m.status === 'off') return [{ serviceId, state: 'stopped', taskId: null, host, exitCode: null, reason: null }];
        const view = r ? agentView(r) : { running: null, reason: 'the server has no record of ours' };
        return [
          {
            serviceId,
            state: view.running ? 'online' : 'offline',
            // A new run of "running" reports is a new run of the node.
            taskId: view.running ? `${m.id}:${view.running.toISOString()}` : null,
            host,
            exitCode: null,
            reason: view.running ? null : (r?.agent_error ?? view.reason),
          },
        ];
      });
    },

    // NOTE: the agent reports the node's state, not what it uses, yet: a machine's node has no
    // usage points, and its page says so (docs/decisions/040).
    usage: async () => [],

    async logs(serviceId, tail) {
      const r = await row(serviceId);
      return r ? r.agent_logs.slice(-tail) : [];
    },
  };
}
