import { randomBytes, randomUUID } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inspect } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { connectDocker, DOCKER_DIR } from '../../src/server/provisioning/drivers/docker-engine';
import { createDockerDriver } from '../../src/server/provisioning/drivers/docker';
import type { NodeHealth, NodeSpec } from '../../src/server/provisioning/provisioner';
import { GALA_KEY } from '../helpers/users';
import { readUntil } from '../helpers/wait';
import { describeProvisioner } from '../provisioning/provisioner-contract';
import { docker, dockerJson, killNode, removeOurs } from './cli';
import { ensureNodeImage, NODE_IMAGE } from './node-image';

// The Docker driver against the real engine (npm test makes it a one-host Swarm manager). Every
// test's ids are collected, and whatever carries them is removed afterwards, failed test or not.

const driver = createDockerDriver(connectDocker({ tlsVerify: false }), {
  registryConfigDir: DOCKER_DIR,
});
const spec = (serviceId: string, image = NODE_IMAGE): NodeSpec => ({
  serviceId,
  userId: randomUUID(),
  product: 'TOWNSTAR',
  image,
  cpus: 0.1,
  memoryMb: 32,
  pool: null,
  key: GALA_KEY,
  machine: null,
});
const ids: string[] = [];
const newId = () => {
  const id = randomUUID();
  ids.push(id);
  return id;
};
const nameOf = (id: string) => `nh-${id.slice(0, 12)}`;
const ours = (kind: 'service' | 'secret', id: string) => docker(kind, 'ls', '-q', '--filter', `label=nodeharbor.service_id=${id}`).split('\n').filter(Boolean);
beforeAll(() => ensureNodeImage());
afterAll(() => removeOurs(ids));

describeProvisioner(
  'Docker Swarm',
  async () => ({
    driver,
    spec,
    crash: async (serviceId) => killNode(serviceId),
    cleanup: async (created) => removeOurs(created),
  }),
  { runTimeoutMs: 60_000, restartTimeoutMs: 60_000 },
);

/** Reads every 0.3 s until `done` holds or the time is up, and returns the last reading. */
const sampleUntil = <T>(read: () => Promise<T> | T, done: (v: T) => boolean, timeoutMs = 60_000): Promise<T> => readUntil(read, done, timeoutMs, 300);
const healthUntil = (id: string, wanted: NodeHealth['state']) =>
  sampleUntil(
    () => driver.health(id),
    (h) => h.state === wanted,
  );

type ServiceInfo = {
  Spec: {
    Name: string;
    Labels: Record<string, string>;
    Mode: { Replicated?: { Replicas: number } };
    TaskTemplate: {
      ContainerSpec: { Image: string; Env?: string[]; Args?: string[]; Command?: string[]; Secrets?: { SecretName: string; SecretID: string; File: object }[] };
      Resources: object;
      RestartPolicy: { Condition: string; Delay: number; MaxAttempts: number };
    };
  };
};

it('runs a node as one service of one replica, with our labels, limits and reservations, a restart policy and its key as a secret file', async () => {
  const id = newId();
  const node = { ...spec(id), product: 'MASTERNODE', cpus: 0.25, memoryMb: 48 };
  await driver.install(node);
  const [svc] = dockerJson<ServiceInfo[]>('service', 'inspect', nameOf(id));
  const resources = { NanoCPUs: 250_000_000, MemoryBytes: 48 * 1024 * 1024 };
  expect(svc!.Spec).toMatchObject({
    Name: nameOf(id),
    Labels: { 'nodeharbor.service_id': id, 'nodeharbor.user_id': node.userId, 'nodeharbor.product': 'MASTERNODE' },
    Mode: { Replicated: { Replicas: 1 } },
    TaskTemplate: {
      Resources: { Limits: resources, Reservations: resources },
      RestartPolicy: { Condition: 'any', Delay: expect.any(Number), MaxAttempts: 0 },
    },
  });
  const delay = svc!.Spec.TaskTemplate.RestartPolicy.Delay;
  expect(delay >= 1e9 && delay <= 30e9, `restart delay of ${delay} ns`).toBe(true);
  // No pool: no constraint, so any host that fits will do.
  expect(docker('service', 'inspect', '--format', '{{json .Spec.TaskTemplate.Placement.Constraints}}', nameOf(id))).toBe('null');
  const secrets = svc!.Spec.TaskTemplate.ContainerSpec.Secrets ?? [];
  expect(secrets).toEqual([
    {
      SecretID: expect.any(String),
      SecretName: expect.stringMatching(new RegExp(`^${nameOf(id)}-[0-9a-f]+$`)),
      File: { Name: 'node_key', UID: '0', GID: '0', Mode: 0o400 },
    },
  ]);
  expect(ours('secret', id)).toEqual([secrets[0]!.SecretID]);
  await driver.uninstall(id);
});

it('puts the key in the secret and nowhere else, and the node reads it at /run/secrets/node_key', async () => {
  const id = newId();
  const key = `nhkey-${randomBytes(16).toString('hex')}`;
  const encoded = Buffer.from(key).toString('base64');
  await driver.install({ ...spec(id), key });
  expect(await healthUntil(id, 'running')).toMatchObject({ state: 'running' });
  const service = docker('service', 'inspect', nameOf(id));
  const [svc] = JSON.parse(service) as ServiceInfo[];
  const container = svc!.Spec.TaskTemplate.ContainerSpec;
  expect(container.Env ?? []).toEqual([]);
  expect([...(container.Args ?? []), ...(container.Command ?? [])]).toEqual([]);
  const containers = docker('ps', '-q', '--filter', `label=nodeharbor.service_id=${id}`).split('\n').filter(Boolean);
  expect(containers).toHaveLength(1);
  const inspected = docker('inspect', containers[0]!);
  const secret = docker('secret', 'inspect', ours('secret', id)[0]!);
  for (const text of [service, inspected, secret]) {
    expect(text).not.toContain(key);
    expect(text).not.toContain(encoded);
  }
  // The test image says how long the key it read is, never what it is.
  const logs = await sampleUntil(
    () => docker('service', 'logs', '--raw', nameOf(id)),
    (l) => l.includes('key of'),
    30_000,
  );
  expect(logs).toContain(`key of ${key.length} characters`);
  expect(logs).not.toContain(key);

  await driver.uninstall(id);
  expect(ours('service', id)).toEqual([]);
  expect(ours('secret', id)).toEqual([]);
});

it('ends with one service and one secret when workers install the same node at the same moment', async () => {
  const id = newId();
  const results = await Promise.allSettled([1, 2, 3].map(() => driver.install(spec(id))));
  // A worker that lost the race in a way the driver cannot settle fails its job, which runs again.
  for (const r of results) if (r.status === 'rejected') await driver.install(spec(id));
  expect(ours('service', id)).toHaveLength(1);
  const [svc] = dockerJson<ServiceInfo[]>('service', 'inspect', nameOf(id));
  expect(ours('secret', id)).toEqual(svc!.Spec.TaskTemplate.ContainerSpec.Secrets!.map((ref) => ref.SecretID));
  await driver.uninstall(id);
});

it('never lets the key into an error when the engine refuses the secret', async () => {
  const id = newId();
  // Over Swarm's 500 KB limit for a secret: refused, with the request that carried it behind the refusal.
  const key = `nhkey-${randomBytes(8).toString('hex')}-`.repeat(30_000);
  const err = await driver.install({ ...spec(id), key }).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(Error);
  expect((err as Error).message).toMatch(/^the node's secret could not be created \(HTTP 400: .*secret data must be/);
  expect(inspect(err, { depth: 10, showHidden: true })).not.toContain(key.slice(0, 40));
  expect(ours('service', id)).toEqual([]);
  expect(ours('secret', id)).toEqual([]);
});

it("reports a node whose image is missing as failing, with the engine's reason", async () => {
  const id = newId();
  await driver.install(spec(id, 'nodeharbor-test/missing:1'));
  expect(await healthUntil(id, 'failing')).toEqual({ state: 'failing', reason: expect.stringContaining('No such image: nodeharbor-test/missing:1') });
  // Started again, it is given a fresh chance: the failures before the stop no longer count.
  await driver.stop(id);
  await driver.start(id);
  expect((await driver.health(id)).state).toBe('starting');
  await driver.uninstall(id);
  expect(ours('service', id)).toEqual([]);
  expect(ours('secret', id)).toEqual([]);
});

it("reports a node no host can fit as starting, with Swarm's reason", async () => {
  const id = newId();
  await driver.install({ ...spec(id), memoryMb: 256 * 1024 });
  const h = await sampleUntil(
    () => driver.health(id),
    (v) => v.state !== 'starting' || !!v.reason?.includes('no suitable node'),
    30_000,
  );
  expect(h).toEqual({ state: 'starting', reason: expect.stringContaining('no suitable node (insufficient resources') });
  await driver.uninstall(id);
});

it("places a node of a pool only on that pool's hosts", async () => {
  const id = newId();
  await driver.install({ ...spec(id), pool: 'nowhere' });
  const constraints = docker('service', 'inspect', '--format', '{{json .Spec.TaskTemplate.Placement.Constraints}}', nameOf(id));
  expect(JSON.parse(constraints)).toEqual(['node.labels.nodeharbor.pool == nowhere']);
  // This engine's only host is in no pool: the node waits for one.
  expect(
    await sampleUntil(
      () => driver.health(id),
      (h) => !!(h.state === 'starting' && h.reason?.includes('no suitable node')),
      30_000,
    ),
  ).toEqual({
    state: 'starting',
    reason: expect.stringContaining('no suitable node'),
  });
  await driver.uninstall(id);
});

it('removes the secret an interrupted install left behind, and lists it until then', async () => {
  const id = newId();
  const file = join(tmpdir(), `nh-left-${id}`);
  writeFileSync(file, 'an old key');
  try {
    docker('secret', 'create', '--label', `nodeharbor.service_id=${id}`, `${nameOf(id)}-left`, file);
  } finally {
    rmSync(file);
  }
  expect((await driver.list()).filter((n) => n.serviceId === id)).toEqual([{ serviceId: id, status: 'absent' }]);
  await driver.install(spec(id));
  const secrets = docker('secret', 'ls', '--format', '{{.Name}}', '--filter', `label=nodeharbor.service_id=${id}`).split('\n');
  expect(secrets).toHaveLength(1);
  expect(secrets[0]).not.toBe(`${nameOf(id)}-left`);
  expect((await driver.list()).filter((n) => n.serviceId === id)).toEqual([{ serviceId: id, status: 'running' }]);
  await driver.uninstall(id);
  expect(ours('service', id)).toEqual([]);
  expect(ours('secret', id)).toEqual([]);
});

it('never lists or touches what does not carry our label', async () => {
  const name = `not-ours-${randomUUID().slice(0, 8)}`;
  docker('service', 'create', '-d', '--name', name, '--label', 'nodeharbor.other=1', NODE_IMAGE);
  try {
    const listed = await driver.list();
    expect(listed.some((n) => n.serviceId.includes('not-ours'))).toBe(false);
    await driver.uninstall(name);
    await driver.stop(name);
    expect(docker('service', 'inspect', '--format', '{{.Spec.Mode.Replicated.Replicas}}', name)).toBe('1');
  } finally {
    docker('service', 'rm', name);
  }
});

it('hands a running node a new key: a new secret, a new container reading it, and no old secret left', async () => {
  const id = newId();
  const oldKey = `nhkey-${randomBytes(16).toString('hex')}`;
  const newKey = `nhkey-${randomBytes(16).toString('hex')}`;
  await driver.install({ ...spec(id), key: oldKey });
  expect(await healthUntil(id, 'running')).toMatchObject({ state: 'running' });
  const oldSecrets = ours('secret', id);
  expect(oldSecrets).toHaveLength(1);
  const containerOf = () => docker('ps', '-q', '--filter', `label=nodeharbor.service_id=${id}`).split('\n').filter(Boolean);
  const readKey = (container: string) => docker('exec', container, '/bin/busybox', 'cat', '/run/secrets/node_key');
  const [oldContainer] = containerOf();
  expect(readKey(oldContainer!)).toBe(oldKey);

  await driver.updateKey({ ...spec(id), key: newKey });
  // The rolling update replaces the container: wait for the one new container that runs.
  const running = await sampleUntil(containerOf, (c) => c.length === 1 && c[0] !== oldContainer, 60_000);
  expect(running).toHaveLength(1);
  expect(running[0]).not.toBe(oldContainer);
  expect(readKey(running[0]!)).toBe(newKey);
  const [svc] = dockerJson<ServiceInfo[]>('service', 'inspect', nameOf(id));
  const refs = svc!.Spec.TaskTemplate.ContainerSpec.Secrets!;
  expect(refs).toEqual([
    {
      SecretID: expect.any(String),
      SecretName: expect.stringMatching(new RegExp(`^${nameOf(id)}-[0-9a-f]+$`)),
      File: { Name: 'node_key', UID: '0', GID: '0', Mode: 0o400 },
    },
  ]);
  expect(ours('secret', id)).toEqual([refs[0]!.SecretID]);
  expect(refs[0]!.SecretID).not.toBe(oldSecrets[0]);
  expect(JSON.stringify(svc)).not.toContain(newKey);
  expect(svc!.Spec.Mode.Replicated?.Replicas).toBe(1);

  await driver.uninstall(id);
  expect(ours('service', id)).toEqual([]);
  expect(ours('secret', id)).toEqual([]);
});

it('samples its running nodes in turns when the budget does not cover them all, two list calls and one stats call each', async () => {
  const [a, b] = [newId(), newId()];
  for (const id of [a, b]) await driver.install(spec(id));
  for (const id of [a, b]) expect(await healthUntil(id, 'running')).toMatchObject({ state: 'running' });
  // Three calls: the services, the containers, and one node's stats. Whatever else of ours runs on
  // this engine, the node sampled longest ago goes next, so both come within a few sweeps.
  const seen = new Set<string>();
  const sweeps = await sampleUntil(
    async () => {
      const got = await driver.usage({ calls: 3, deadline: AbortSignal.timeout(30_000) });
      expect(got.length).toBeLessThanOrEqual(1);
      for (const u of got) seen.add(u.serviceId);
      return seen;
    },
    (s) => s.has(a) && s.has(b),
  );
  expect([...sweeps].filter((id) => id === a || id === b).sort()).toEqual([a, b].sort());
  // Two calls leave none for stats: nothing is sampled.
  expect(await driver.usage({ calls: 2, deadline: AbortSignal.timeout(30_000) })).toEqual([]);
  for (const id of [a, b]) await driver.uninstall(id);
});
