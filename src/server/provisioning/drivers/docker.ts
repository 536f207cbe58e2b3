import { randomBytes } from 'node:crypto';
import type Docker from 'dockerode';
import type { EngineNode, NodeHealth, NodeSpec, NodeStatus, Provisioner } from '../provisioner';

/** The label that links a Swarm service or secret to its service row; nothing without it is ever touched. */
export const SERVICE_LABEL = 'nodeharbor.service_id';
/** Ended tasks after which a node that never ran is reported failing (Swarm keeps restarting it). */
const FAILING_AFTER = 3;
/** A task's end states that mean the node could not run. */
const FAILED_STATES = new Set(['failed', 'rejected', 'complete']);

type EngineError = Error & { statusCode?: number; json?: { message?: string } };

/** The Swarm service of a service row: `nh-` and the first 12 characters of its id. */
export const swarmServiceName = (serviceId: string) => `nh-${serviceId.slice(0, 12)}`;

const isStatus = (e: unknown, ...codes: number[]) => codes.includes((e as EngineError).statusCode ?? 0);
const ignoreMissing = (e: unknown) => {
  if (!isStatus(e, 404)) throw e;
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Nodes on Docker Swarm, through the Engine API (dockerode). A node is one replicated service of
 * 1 replica with the customer's key as a Docker secret mounted at /run/secrets/node_key; Swarm
 * places, restarts and moves it. Everything is found by the label SERVICE_LABEL, so that every
 * method can be repeated and a crash between two calls leaves nothing that the next call does not
 * find. The key goes into the engine's secret store and nowhere else: not the spec, not an error.
 */
export function createDockerDriver(docker: Docker): Provisioner {
  const byLabel = (serviceId?: string) => ({ filters: { label: [serviceId ? `${SERVICE_LABEL}=${serviceId}` : SERVICE_LABEL] } });
  const servicesOf = (serviceId: string) => docker.listServices(byLabel(serviceId));
  const secretsOf = (serviceId: string) => docker.listSecrets(byLabel(serviceId));

  const removeSecrets = async (serviceId: string) => {
    for (const secret of await secretsOf(serviceId)) {
      // A secret is refused while a service being removed still names it: a few tries.
      for (let attempt = 1; ; attempt++) {
        try {
          await docker.getSecret(secret.ID).remove();
          break;
        } catch (e) {
          if (isStatus(e, 404)) break;
          if (attempt >= 10 || !isStatus(e, 400, 409, 500)) throw e;
          await sleep(200 * attempt);
        }
      }
    }
  };

  const createSecret = async (spec: NodeSpec): Promise<{ id: string; name: string }> => {
    const name = `${swarmServiceName(spec.serviceId)}-${randomBytes(4).toString('hex')}`;
    try {
      const secret = await docker.createSecret({
        Name: name,
        Labels: { [SERVICE_LABEL]: spec.serviceId },
        Data: Buffer.from(spec.key, 'utf8').toString('base64'),
      });
      return { id: secret.id, name };
    } catch (e) {
      const err = e as EngineError;
      // eslint-disable-next-line preserve-caught-error -- the engine's error holds the request, and the request the key
      throw new Error(`the node's secret could not be created: HTTP ${err.statusCode ?? '?'} ${err.json?.message ?? ''}`.trim());
    }
  };

  const scale = async (serviceId: string, replicas: number) => {
    for (let attempt = 1; ; attempt++) {
      const [svc] = await servicesOf(serviceId);
      // Nothing to scale: starting or stopping never creates a node.
      if (!svc?.Spec?.Mode?.Replicated) return;
      if (svc.Spec.Mode.Replicated.Replicas === replicas) return;
      try {
        await docker.getService(svc.ID).update({
          _query: { version: svc.Version?.Index },
          _body: { ...svc.Spec, Mode: { Replicated: { Replicas: replicas } } },
        } as unknown as Docker.ServiceSpec);
        return;
      } catch (e) {
        // Someone else updated it in between (out of sequence): read it again, once.
        if (attempt >= 2 || isStatus(e, 404)) throw e;
      }
    }
  };

  const status = async (serviceId: string): Promise<NodeStatus> => {
    const [svc] = await servicesOf(serviceId);
    if (!svc) return 'absent';
    return svc.Spec?.Mode?.Replicated?.Replicas === 0 ? 'stopped' : 'running';
  };

  return {
    status,

    async install(spec) {
      if ((await servicesOf(spec.serviceId)).length) return;
      // No service carries this id, so no secret of it is in use: these are an earlier attempt's.
      await removeSecrets(spec.serviceId);
      const secret = await createSecret(spec);
      const labels = { [SERVICE_LABEL]: spec.serviceId, 'nodeharbor.user_id': spec.userId, 'nodeharbor.product': spec.product };
      const resources = { NanoCPUs: Math.round(spec.cpus * 1e9), MemoryBytes: spec.memoryMb * 1024 * 1024 };
      try {
        await docker.createService({
          Name: swarmServiceName(spec.serviceId),
          Labels: labels,
          TaskTemplate: {
            ContainerSpec: {
              Image: spec.image,
              Labels: labels,
              Secrets: [{ SecretID: secret.id, SecretName: secret.name, File: { Name: 'node_key', UID: '0', GID: '0', Mode: 0o400 } }],
            },
            // Reserved as well as limited, so that Swarm starts a node only where it fits.
            Resources: { Limits: resources, Reservations: resources },
            RestartPolicy: { Condition: 'any', Delay: 5_000_000_000, MaxAttempts: 0 },
            Placement: spec.pool ? { Constraints: [`node.labels.nodeharbor.pool == ${spec.pool}`] } : {},
          },
          Mode: { Replicated: { Replicas: 1 } },
        });
      } catch (e) {
        await docker.getSecret(secret.id).remove().catch(ignoreMissing);
        // Created at the same time by another worker: theirs is the node, if it is this service's.
        if (isStatus(e, 409) && (await servicesOf(spec.serviceId)).length) return;
        throw e;
      }
    },

    async uninstall(serviceId) {
      for (const svc of await servicesOf(serviceId)) await docker.getService(svc.ID).remove().catch(ignoreMissing);
      await removeSecrets(serviceId);
    },

    stop: (serviceId) => scale(serviceId, 0),
    start: (serviceId) => scale(serviceId, 1),

    async health(serviceId): Promise<NodeHealth> {
      const [svc] = await servicesOf(serviceId);
      if (!svc) return { state: 'absent' };
      if (svc.Spec?.Mode?.Replicated?.Replicas === 0) return { state: 'stopped' };
      const tasks = (await docker.listTasks({ filters: { service: [svc.ID] } })).sort(
        (a, b) => Date.parse(b.Status?.Timestamp ?? '') - Date.parse(a.Status?.Timestamp ?? ''),
      );
      const running = tasks.find((t) => t.Status?.State === 'running' && t.DesiredState === 'running');
      if (running) return { state: 'running', since: new Date(running.Status!.Timestamp!) };
      const ended = tasks.filter((t) => FAILED_STATES.has(t.Status?.State ?? ''));
      const reasonOf = (t: (typeof tasks)[number] | undefined) => t?.Status?.Err || t?.Status?.Message || undefined;
      if (ended.length >= FAILING_AFTER) return { state: 'failing', reason: reasonOf(ended[0]) ?? `the node stopped ${ended.length} times` };
      // Pulling or placing: the engine's error, if any, says why ("no suitable node ...").
      return { state: 'starting', reason: tasks[0]?.Status?.Err || undefined };
    },

    async list(): Promise<EngineNode[]> {
      const nodes = new Map<string, NodeStatus>();
      for (const svc of await docker.listServices(byLabel())) {
        const id = svc.Spec?.Labels?.[SERVICE_LABEL];
        if (id) nodes.set(id, svc.Spec?.Mode?.Replicated?.Replicas === 0 ? 'stopped' : 'running');
      }
      for (const secret of await docker.listSecrets(byLabel())) {
        const id = secret.Spec?.Labels?.[SERVICE_LABEL];
        if (id && !nodes.has(id)) nodes.set(id, 'absent');
      }
      return [...nodes].map(([serviceId, s]) => ({ serviceId, status: s }));
    },
  };
}
