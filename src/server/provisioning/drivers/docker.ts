import { randomBytes } from 'node:crypto';
import type Docker from 'dockerode';
import type { EngineNode, NodeHealth, NodeObservation, NodeSpec, NodeStatus, NodeUsage, Provisioner, UsageBudget } from '../provisioner';
import { logLines } from './docker-logs';
import { registryAuthFor } from './registry-auth';

export type DockerDriverOptions = {
  /** Where `docker login` keeps registry credentials (DOCKER_CONFIG): sent with a new service, as `--with-registry-auth` does. None: images are pulled without credentials. */
  registryConfigDir?: string | undefined;
};

/** The label that links a Swarm service or secret to its service row; nothing without it is ever listed or touched. */
const SERVICE_LABEL = 'nodeharbor.service_id';
/** Where the node finds its key: /run/secrets/node_key. */
const KEY_TARGET = 'node_key';
/** Ended tasks after which a node that is not running is reported failing (Swarm would go on restarting it). */
const FAILING_AFTER = 3;
/** A task's end states that mean the node could not run; `complete` too: a node that exits is not running. */
const ENDED_STATES = new Set(['failed', 'rejected', 'complete']);
/**
 * A task's states on its way to running. Swarm holds a restarted node's next task in them, with
 * the desired state `ready`, during the restart delay. NOTE: a node whose image has a HEALTHCHECK
 * stays `starting` until it is healthy, and Swarm replaces it when it turns unhealthy (its task
 * fails): the task's state already says how the node's health check goes.
 */
const STARTING_STATES = new Set(['new', 'pending', 'assigned', 'accepted', 'preparing', 'ready', 'starting']);
/** Swarm waits this long before it starts a node's task again. */
const RESTART_DELAY_NS = 5_000_000_000;
/** How long the engine may take to send a node's logs: Swarm's log answer can hang (moby/moby#38640, docker/cli#4678). */
const LOGS_TIMEOUT_MS = 15_000;

/** A usage sample's calls before the stats: the services (their CPU limits) and the running containers. */
const USAGE_LIST_CALLS = 2;
/** Stats calls at a time: the engine takes about a second over each, measuring CPU over an interval. */
const STATS_AT_ONCE = 8;

/** How a host's engine says it has no image and could not pull it (Swarm's task error). */
const NOT_PULLED = /No such image|pull access denied|manifest unknown|unauthorized|denied: /i;
/** The reason an image that could not be pulled fails an install with: what the operator must do, and the engine's words. */
const notPulled = (svc: Docker.Service, reason: string) => {
  const template = svc.Spec?.TaskTemplate;
  const image = (template && 'ContainerSpec' in template && template.ContainerSpec?.Image) || 'the node image';
  return `The node image ${image.replace(/@sha256:[0-9a-f]+$/, '')} could not be pulled: the operator must push it or set registry credentials (${reason})`;
};

type EngineError = Error & { statusCode?: number; code?: string; json?: { message?: string } | string | null };
/** What health and observe read of a task (the typings leave tasks untyped). */
type Task = {
  ID?: string;
  ServiceID?: string;
  NodeID?: string;
  CreatedAt?: string;
  DesiredState?: string;
  Status?: { State?: string; Timestamp?: string; Err?: string; Message?: string; ContainerStatus?: { ContainerID?: string; ExitCode?: number } };
};

/** How a node's secret is mounted: /run/secrets/node_key, readable by root only. */
const keyMount = (secret: { id: string; name: string }) => ({
  SecretID: secret.id,
  SecretName: secret.name,
  File: { Name: KEY_TARGET, UID: '0', GID: '0', Mode: 0o400 },
});

/** The Swarm service of a service row: `nh-` and the first 12 characters of its id. */
const swarmServiceName = (serviceId: string) => `nh-${serviceId.slice(0, 12)}`;

const hasStatus = (e: unknown, ...codes: number[]) => codes.includes((e as EngineError).statusCode ?? 0);
const engineMessage = (e: unknown) => {
  const json = (e as EngineError).json;
  return typeof json === 'string' ? json : (json?.message ?? '');
};
const ignoreMissing = (e: unknown) => {
  if (!hasStatus(e, 404)) throw e;
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const replicasStatus = (svc: Docker.Service): NodeStatus => (svc.Spec?.Mode?.Replicated?.Replicas === 0 ? 'stopped' : 'running');
const reasonOf = (t: Task | undefined) => t?.Status?.Err || t?.Status?.Message || undefined;
/** A run that ended by itself: it exited, failed or was refused, or was shut down though it was meant to run. */
const endedByItself = (t: Task) => ENDED_STATES.has(t.Status?.State ?? '') || (t.Status?.State === 'shutdown' && t.DesiredState !== 'shutdown');

/**
 * One service's node as its tasks show it (`hostnames`: Swarm node id to hostname). Its current
 * task is the newest that Swarm means to be running. online: that task runs. restarting: it does
 * not, but a task is on its way to running (after a run that ended, in Swarm's restart delay, or
 * started again), or the newest task Swarm means to run ended by itself, which our restart policy
 * replaces. offline: nothing runs and nothing is on its way (a task no host can take, no task).
 * stopped: 0 replicas, whatever its tasks. `exitCode` is the newest run's that ended by itself,
 * when it had a container; `reason` the engine's words when the node is neither online nor stopped:
 * for restarting, why the last run ended.
 */
export function observeService(svc: Docker.Service, tasks: Task[], hostnames: ReadonlyMap<string, string>): NodeObservation {
  const created = (t: Task) => Date.parse(t.CreatedAt ?? '') || 0;
  const newest = [...tasks].sort((a, b) => created(b) - created(a));
  const current = newest.find((t) => t.DesiredState === 'running');
  const ended = newest.find(endedByItself);
  // A task refused before it had a container (no such image) reports exit code 0: it has none.
  const exitCode = ended?.Status?.ContainerStatus?.ContainerID ? (ended.Status.ContainerStatus.ExitCode ?? null) : null;
  const observation = {
    serviceId: svc.Spec?.Labels?.[SERVICE_LABEL] ?? '',
    taskId: current?.ID ?? null,
    host: (current?.NodeID && hostnames.get(current.NodeID)) || null,
    exitCode,
  };
  if (replicasStatus(svc) === 'stopped') return { ...observation, state: 'stopped', reason: null };
  if (current?.Status?.State === 'running') return { ...observation, state: 'online', reason: null };
  // The task Swarm will run next: the current one, or one held in the restart delay.
  const next = newest.find((t) => t.DesiredState === 'running' || t.DesiredState === 'ready');
  // A pending task with an error is one no host can take ("no suitable node"): it is not on its way.
  const onItsWay = next && ((STARTING_STATES.has(next.Status?.State ?? '') && !next.Status?.Err) || endedByItself(next));
  if (onItsWay) return { ...observation, state: 'restarting', reason: reasonOf(ended) ?? reasonOf(next) ?? null };
  return { ...observation, state: 'offline', reason: reasonOf(next ?? newest[0]) ?? null };
}

/** What usageOf reads of a container's stats (GET /containers/{id}/stats?stream=false). */
type CpuStats = { cpu_usage?: { total_usage?: number; percpu_usage?: number[] }; system_cpu_usage?: number; online_cpus?: number };
export type ContainerStats = {
  cpu_stats?: CpuStats;
  precpu_stats?: CpuStats;
  memory_stats?: { usage?: number; limit?: number; stats?: Record<string, number | undefined> };
  networks?: Record<string, { rx_bytes?: number; tx_bytes?: number }>;
};

/**
 * A container's stats as a usage sample, as `docker stats` reads them: CPU from the engine's two
 * readings a moment apart, as a share of `cpus` (the node's limit in cores; its host's when it has
 * none); memory without the page cache the kernel may drop (inactive_file, cgroup v2, or
 * total_inactive_file, v1); the network summed over its interfaces. Null when the stats lack a
 * reading (a container that has just started, or just stopped).
 */
export function usageOf(serviceId: string, containerId: string, stats: ContainerStats, cpus: number | null): NodeUsage | null {
  const cpu = stats.cpu_stats;
  const pre = stats.precpu_stats;
  const mem = stats.memory_stats;
  const cpuDelta = (cpu?.cpu_usage?.total_usage ?? 0) - (pre?.cpu_usage?.total_usage ?? 0);
  const systemDelta = (cpu?.system_cpu_usage ?? 0) - (pre?.system_cpu_usage ?? 0);
  if (!pre?.system_cpu_usage || systemDelta <= 0 || cpuDelta < 0 || mem?.usage === undefined) return null;
  const hostCpus = cpu?.online_cpus || cpu?.cpu_usage?.percpu_usage?.length || 1;
  const cores = (cpuDelta / systemDelta) * hostCpus;
  const cache = mem.stats?.inactive_file ?? mem.stats?.total_inactive_file ?? 0;
  const nets = Object.values(stats.networks ?? {});
  const sum = (key: 'rx_bytes' | 'tx_bytes') => (nets.length ? nets.reduce((n, i) => n + (i[key] ?? 0), 0) : null);
  return {
    serviceId,
    run: containerId,
    cpuPercent: (cores / (cpus && cpus > 0 ? cpus : hostCpus)) * 100,
    memoryBytes: Math.max(0, mem.usage - (cache < mem.usage ? cache : 0)),
    memoryLimitBytes: mem.limit || null,
    rxBytes: sum('rx_bytes'),
    txBytes: sum('tx_bytes'),
  };
}

/**
 * Nodes on Docker Swarm, through the Engine API (dockerode). A node is one replicated service of
 * 1 replica with the customer's key as a Docker secret mounted at /run/secrets/node_key; Swarm
 * places it where its reserved CPU and memory fit, restarts it and moves it off a failed host.
 * Everything is found by the label SERVICE_LABEL, so that every method can be repeated and a crash
 * between two calls leaves nothing that the next call does not find. The key goes into the
 * engine's secret store and nowhere else: not the service's spec, not an error we throw.
 */
export function createDockerDriver(docker: Docker, opts: DockerDriverOptions = {}): Provisioner {
  const byLabel = (serviceId?: string) => ({ filters: { label: [serviceId ? `${SERVICE_LABEL}=${serviceId}` : SERVICE_LABEL] } });
  const servicesOf = (serviceId: string) => docker.listServices(byLabel(serviceId));

  /** Removes a secret; `inUse: 'skip'` leaves one a service names (it is no leftover), 'retry' waits for a service being removed. */
  const removeSecret = async (id: string, inUse: 'skip' | 'retry') => {
    for (let attempt = 1; ; attempt++) {
      try {
        await docker.getSecret(id).remove();
        return;
      } catch (e) {
        if (hasStatus(e, 404)) return;
        // Refused (400) while a service names it.
        if (!hasStatus(e, 400)) throw e;
        if (inUse === 'skip') return;
        if (attempt >= 5) throw e;
        await sleep(200 * attempt);
      }
    }
  };

  /** The service's labelled secrets that none of our services names: an interrupted install's, or a removed node's. */
  const removeUnusedSecrets = async (serviceId: string) => {
    const used = new Set<string>();
    for (const svc of await docker.listServices(byLabel())) {
      const template = svc.Spec?.TaskTemplate;
      const refs = template && 'ContainerSpec' in template ? (template.ContainerSpec?.Secrets ?? []) : [];
      for (const ref of refs) if (ref.SecretID) used.add(ref.SecretID);
    }
    // A service created since the list above may name one by now: the engine refuses, and it stays.
    for (const secret of await docker.listSecrets(byLabel(serviceId))) if (!used.has(secret.ID)) await removeSecret(secret.ID, 'skip');
  };

  const createSecret = async (spec: NodeSpec): Promise<{ id: string; name: string }> => {
    // Secrets cannot change: a fresh name for each install, so that a re-install never meets an old one.
    const name = `${swarmServiceName(spec.serviceId)}-${randomBytes(4).toString('hex')}`;
    try {
      const secret = await docker.createSecret({
        Name: name,
        Labels: { [SERVICE_LABEL]: spec.serviceId },
        Data: Buffer.from(spec.key, 'utf8').toString('base64'),
      });
      return { id: secret.id, name };
    } catch (e) {
      // NOTE: a new error, without the engine's as its cause: that one belongs to a request that carried the key.
      const err = e as EngineError;
      const why = err.statusCode ? `HTTP ${err.statusCode}: ${engineMessage(e)}` : (err.code ?? 'no answer');
      // eslint-disable-next-line preserve-caught-error -- the cause is left out on purpose (above)
      throw new Error(`the node's secret could not be created (${why.trim()})`);
    }
  };

  /**
   * Changes a node's Swarm service: `change` gives the new spec from the one read, or undefined
   * when there is nothing to change. The update names the version it read, so a service changed in
   * between is refused, not overwritten, and read again once. Never creates a node: a service
   * missing, or removed meanwhile, has nothing to change.
   */
  const updateService = async (serviceId: string, change: (svc: Docker.Service) => Docker.ServiceSpec | undefined) => {
    for (let attempt = 1; ; attempt++) {
      const [svc] = await servicesOf(serviceId);
      const spec = svc && change(svc);
      if (!svc || !spec) return;
      try {
        await docker.getService(svc.ID).update({ _query: { version: svc.Version?.Index }, _body: spec } as unknown as Docker.ServiceSpec);
        return;
      } catch (e) {
        if (hasStatus(e, 404)) return;
        // Changed meanwhile ("update out of sequence"): read it again, once.
        if (attempt >= 2 || !/out of sequence/i.test(engineMessage(e))) throw e;
      }
    }
  };

  const scale = (serviceId: string, replicas: number) =>
    updateService(serviceId, (svc) =>
      svc.Spec?.Mode?.Replicated && svc.Spec.Mode.Replicated.Replicas !== replicas ? { ...svc.Spec, Mode: { Replicated: { Replicas: replicas } } } : undefined,
    );

  const status = async (serviceId: string): Promise<NodeStatus> => {
    const [svc] = await servicesOf(serviceId);
    return svc ? replicasStatus(svc) : 'absent';
  };

  /** When each node's usage was last asked for (Date.now()): the longest waiting go first. */
  const usageAskedAt = new Map<string, number>();

  return {
    status,

    async install(spec) {
      if ((await servicesOf(spec.serviceId)).length) return;
      await removeUnusedSecrets(spec.serviceId);
      const secret = await createSecret(spec);
      const labels = { [SERVICE_LABEL]: spec.serviceId, 'nodeharbor.user_id': spec.userId, 'nodeharbor.product': spec.product };
      const resources = { NanoCPUs: Math.round(spec.cpus * 1e9), MemoryBytes: Math.round(spec.memoryMb * 1024 * 1024) };
      // The registry's credentials travel in a header, and Swarm keeps them for the node's hosts.
      const auth = opts.registryConfigDir ? registryAuthFor(opts.registryConfigDir, spec.image) : undefined;
      try {
        await docker.createService(auth as Docker.AuthConfig, {
          Name: swarmServiceName(spec.serviceId),
          Labels: labels,
          TaskTemplate: {
            ContainerSpec: {
              Image: spec.image,
              Labels: labels,
              Secrets: [keyMount(secret)],
            },
            // Reserved as well as limited, so that Swarm starts a node only on a host where it fits.
            Resources: { Limits: resources, Reservations: resources },
            // Restarted however it ends, without a limit: Swarm keeps the node up, here or on another host.
            RestartPolicy: { Condition: 'any', Delay: RESTART_DELAY_NS, MaxAttempts: 0 },
            Placement: spec.pool ? { Constraints: [`node.labels.nodeharbor.pool == ${spec.pool}`] } : {},
          },
          Mode: { Replicated: { Replicas: 1 } },
        });
      } catch (e) {
        await removeSecret(secret.id, 'skip').catch(() => undefined);
        // Installed at the same moment by another worker (the name is taken, 409, or it removed our
        // secret as a leftover, 400): theirs is the node.
        if (hasStatus(e, 400, 409) && (await servicesOf(spec.serviceId)).length) return;
        throw e;
      }
    },

    /**
     * A new secret, then a rolling update of the service to mount it instead (Swarm's default
     * order, stop-first: never two runs of one node, each with a key), then the old secret removed.
     * Replicas are kept, so a stopped node stays stopped. A crash anywhere leaves at most an
     * unused secret, which the next call, install or the reconciler removes.
     */
    async updateKey(spec) {
      if (!(await servicesOf(spec.serviceId)).length) return;
      const secret = await createSecret(spec);
      try {
        await updateService(spec.serviceId, (svc) => {
          const template = svc.Spec?.TaskTemplate;
          if (!svc.Spec || !template || !('ContainerSpec' in template) || !template.ContainerSpec) return undefined;
          const secrets = [...(template.ContainerSpec.Secrets ?? []).filter((ref) => ref.File?.Name !== KEY_TARGET), keyMount(secret)];
          return { ...svc.Spec, TaskTemplate: { ...template, ContainerSpec: { ...template.ContainerSpec, Secrets: secrets } } };
        });
      } finally {
        // The old secret, or the new one when the update did not take it: whichever no service names.
        await removeUnusedSecrets(spec.serviceId);
      }
    },

    async uninstall(serviceId) {
      for (const svc of await servicesOf(serviceId)) await docker.getService(svc.ID).remove().catch(ignoreMissing);
      for (const secret of await docker.listSecrets(byLabel(serviceId))) await removeSecret(secret.ID, 'retry');
    },

    stop: (serviceId) => scale(serviceId, 0),
    start: (serviceId) => scale(serviceId, 1),

    /**
     * A forced update (`docker service update --force`): Swarm replaces the running task with a new
     * one of the same spec, stop-first, so never two runs at once. At 0 replicas nothing runs, and
     * nothing is started.
     */
    restart: (serviceId) =>
      updateService(serviceId, (svc) => {
        const template = svc.Spec?.TaskTemplate;
        if (!svc.Spec || !template || replicasStatus(svc) === 'stopped') return undefined;
        return { ...svc.Spec, TaskTemplate: { ...template, ForceUpdate: (template.ForceUpdate ?? 0) + 1 } };
      }),

    async health(serviceId): Promise<NodeHealth> {
      const [svc] = await servicesOf(serviceId);
      if (!svc) return { state: 'absent' };
      if (replicasStatus(svc) === 'stopped') return { state: 'stopped' };
      const at = (t: Task) => Date.parse(t.Status?.Timestamp ?? '') || 0;
      const tasks = ((await docker.listTasks({ filters: { service: [svc.ID] } })) as Task[]).sort((a, b) => at(b) - at(a));
      const running = tasks.find((t) => t.Status?.State === 'running' && t.DesiredState === 'running');
      if (running) return { state: 'running', since: new Date(at(running)) };
      // Only the tasks of the service as it is now count: a node stopped after failing, then started, starts afresh.
      const changed = Date.parse(svc.UpdatedAt ?? '') || 0;
      const ended = tasks.filter((t) => ENDED_STATES.has(t.Status?.State ?? '') && (Date.parse(t.CreatedAt ?? '') || 0) >= changed);
      if (ended.length >= FAILING_AFTER) {
        const reason = reasonOf(ended[0]) ?? `the node ended ${ended.length} times`;
        return { state: 'failing', reason: NOT_PULLED.test(reason) ? notPulled(svc, reason) : reason };
      }
      // Pulling, placing or waiting to be restarted: the engine says why ("no suitable node (insufficient resources on 1 node)").
      const reason = reasonOf(tasks[0]);
      return reason ? { state: 'starting', reason } : { state: 'starting' };
    },

    async list(): Promise<EngineNode[]> {
      const nodes = new Map<string, NodeStatus>();
      for (const svc of await docker.listServices(byLabel())) {
        const id = svc.Spec?.Labels?.[SERVICE_LABEL];
        if (id) nodes.set(id, replicasStatus(svc));
      }
      // A secret whose service is gone is listed too, so that the reconciler can remove it.
      for (const secret of await docker.listSecrets(byLabel())) {
        const id = secret.Spec?.Labels?.[SERVICE_LABEL];
        if (id && !nodes.has(id)) nodes.set(id, 'absent');
      }
      return [...nodes].map(([serviceId, s]) => ({ serviceId, status: s }));
    },

    /**
     * Three engine calls whatever the number of nodes (one when there is none): the services by
     * label, all their tasks at once, and the Swarm nodes for their hostnames (observeService).
     */
    async observe(): Promise<NodeObservation[]> {
      for (let attempt = 1; ; attempt++) {
        const services = (await docker.listServices(byLabel())).filter((svc) => svc.Spec?.Labels?.[SERVICE_LABEL]);
        if (!services.length) return [];
        try {
          const [tasks, nodes] = await Promise.all([
            docker.listTasks({ filters: { service: services.map((svc) => svc.ID) } }) as Promise<Task[]>,
            docker.listNodes() as Promise<{ ID: string; Description?: { Hostname?: string } }[]>,
          ]);
          const hostnames = new Map(nodes.map((n) => [n.ID, n.Description?.Hostname ?? '']));
          const tasksOf = new Map<string, Task[]>(services.map((svc) => [svc.ID, []]));
          for (const t of tasks) tasksOf.get(t.ServiceID ?? '')?.push(t);
          return services.map((svc) => observeService(svc, tasksOf.get(svc.ID)!, hostnames));
        } catch (e) {
          // A service removed since the list makes the engine refuse the task filter that names it: list again.
          if (!hasStatus(e, 404) || attempt >= 3) throw e;
        }
      }
    },

    /**
     * Two list calls, then one stats call per running node, at most `budget.calls` in all, STATS_AT_ONCE
     * at a time, none begun after the deadline and any under way then abandoned. NOTE: the engine
     * at DOCKER_HOST measures only the containers of its own host: on a Swarm of several hosts, the
     * nodes placed on the others get no samples (docs/decisions/040).
     */
    async usage({ calls, deadline }: UsageBudget): Promise<NodeUsage[]> {
      if (calls <= USAGE_LIST_CALLS || deadline.aborted) return [];
      // Fresh options for each call: docker-modem deletes abortSignal from the object it is given.
      const [services, containers] = await Promise.all([
        docker.listServices({ ...byLabel(), abortSignal: deadline } as Docker.ServiceListOptions),
        docker.listContainers({ filters: { label: [SERVICE_LABEL], status: ['running'] }, abortSignal: deadline } as Docker.ContainerListOptions),
      ]);
      const cpusOf = new Map<string, number>();
      for (const svc of services) {
        const id = svc.Spec?.Labels?.[SERVICE_LABEL];
        const nano = svc.Spec?.TaskTemplate?.Resources?.Limits?.NanoCPUs;
        if (id && nano) cpusOf.set(id, nano / 1e9);
      }
      const running = containers.flatMap((c) => {
        const serviceId = c.Labels?.[SERVICE_LABEL];
        return serviceId ? [{ serviceId, containerId: c.Id }] : [];
      });
      for (const id of usageAskedAt.keys()) if (!running.some((r) => r.serviceId === id)) usageAskedAt.delete(id);
      const turn = running.sort((a, b) => (usageAskedAt.get(a.serviceId) ?? 0) - (usageAskedAt.get(b.serviceId) ?? 0)).slice(0, calls - USAGE_LIST_CALLS);
      const samples: NodeUsage[] = [];
      let next = 0;
      const worker = async () => {
        for (let item = turn[next++]; item && !deadline.aborted; item = turn[next++]) {
          usageAskedAt.set(item.serviceId, Date.now());
          try {
            // The typings lack abortSignal; stream: false answers once, with the reading a moment before it.
            const stats = (await docker.getContainer(item.containerId).stats({ stream: false, abortSignal: deadline } as { stream: false })) as ContainerStats;
            const sample = usageOf(item.serviceId, item.containerId, stats, cpusOf.get(item.serviceId) ?? null);
            if (sample) samples.push(sample);
          } catch {
            // Gone since the list (404), or past the deadline: no sample of it this time.
          }
        }
      };
      await Promise.all(Array.from({ length: Math.min(STATS_AT_ONCE, turn.length) }, worker));
      return samples;
    },

    async logs(serviceId, tail) {
      const [svc] = await servicesOf(serviceId);
      if (!svc) return [];
      let body: Buffer;
      try {
        // follow: false, so the engine answers once, all of it, and dockerode hands it over as a Buffer (its typings say a stream).
        const opts = { stdout: true, stderr: true, tail, follow: false, timestamps: true, abortSignal: AbortSignal.timeout(LOGS_TIMEOUT_MS) };
        body = (await docker.getService(svc.ID).logs(opts)) as unknown as Buffer;
      } catch (e) {
        // Removed meanwhile: no node, no logs.
        if (hasStatus(e, 404)) return [];
        throw e;
      }
      // NOTE: Swarm applies `tail` to each of the service's tasks (a node that restarted has several)
      // and sends them one task after another: the lines are put in the order of their timestamps
      // (fixed-width RFC 3339, so as text; a stable sort keeps the engine's order within one instant), then cut.
      const at = (line: string) => line.split(' ', 1)[0]!;
      const lines = logLines(body).sort((a, b) => (at(a) < at(b) ? -1 : at(a) > at(b) ? 1 : 0));
      return lines.slice(Math.max(0, lines.length - tail));
    },
  };
}
