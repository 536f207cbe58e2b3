import { randomBytes } from 'node:crypto';
import type Docker from 'dockerode';
import type { EngineNode, NodeHealth, NodeSpec, NodeStatus, Provisioner } from '../provisioner';
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
/** Swarm waits this long before it starts a node's task again. */
const RESTART_DELAY_NS = 5_000_000_000;

type EngineError = Error & { statusCode?: number; code?: string; json?: { message?: string } | string | null };
/** What health reads of a task (the typings leave tasks untyped). */
type Task = { CreatedAt?: string; DesiredState?: string; Status?: { State?: string; Timestamp?: string; Err?: string; Message?: string } };

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

  const scale = async (serviceId: string, replicas: number) => {
    for (let attempt = 1; ; attempt++) {
      const [svc] = await servicesOf(serviceId);
      // Nothing to scale: starting or stopping never creates a node.
      if (!svc?.Spec?.Mode?.Replicated) return;
      if (svc.Spec.Mode.Replicated.Replicas === replicas) return;
      try {
        // The update names the version it read: a service changed in between is refused, not overwritten.
        await docker.getService(svc.ID).update({
          _query: { version: svc.Version?.Index },
          _body: { ...svc.Spec, Mode: { Replicated: { Replicas: replicas } } },
        } as unknown as Docker.ServiceSpec);
        return;
      } catch (e) {
        // Removed meanwhile: there is nothing to scale, as above.
        if (hasStatus(e, 404)) return;
        // Changed meanwhile ("update out of sequence"): read it again, once.
        if (attempt >= 2 || !/out of sequence/i.test(engineMessage(e))) throw e;
      }
    }
  };

  const replicasStatus = (svc: Docker.Service): NodeStatus => (svc.Spec?.Mode?.Replicated?.Replicas === 0 ? 'stopped' : 'running');

  const status = async (serviceId: string): Promise<NodeStatus> => {
    const [svc] = await servicesOf(serviceId);
    return svc ? replicasStatus(svc) : 'absent';
  };

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
              Secrets: [{ SecretID: secret.id, SecretName: secret.name, File: { Name: KEY_TARGET, UID: '0', GID: '0', Mode: 0o400 } }],
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

    async uninstall(serviceId) {
      for (const svc of await servicesOf(serviceId)) await docker.getService(svc.ID).remove().catch(ignoreMissing);
      for (const secret of await docker.listSecrets(byLabel(serviceId))) await removeSecret(secret.ID, 'retry');
    },

    stop: (serviceId) => scale(serviceId, 0),
    start: (serviceId) => scale(serviceId, 1),

    async health(serviceId): Promise<NodeHealth> {
      const [svc] = await servicesOf(serviceId);
      if (!svc) return { state: 'absent' };
      if (replicasStatus(svc) === 'stopped') return { state: 'stopped' };
      const at = (t: Task) => Date.parse(t.Status?.Timestamp ?? '') || 0;
      const tasks = ((await docker.listTasks({ filters: { service: [svc.ID] } })) as Task[]).sort((a, b) => at(b) - at(a));
      const running = tasks.find((t) => t.Status?.State === 'running' && t.DesiredState === 'running');
      if (running) return { state: 'running', since: new Date(at(running)) };
      const reasonOf = (t: Task | undefined) => t?.Status?.Err || t?.Status?.Message || undefined;
      // Only the tasks of the service as it is now count: a node stopped after failing, then started, starts afresh.
      const changed = Date.parse(svc.UpdatedAt ?? '') || 0;
      const ended = tasks.filter((t) => ENDED_STATES.has(t.Status?.State ?? '') && (Date.parse(t.CreatedAt ?? '') || 0) >= changed);
      if (ended.length >= FAILING_AFTER) return { state: 'failing', reason: reasonOf(ended[0]) ?? `the node ended ${ended.length} times` };
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
  };
}
