import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, request } from 'node:http';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { connectDocker, DEFAULT_DOCKER_HOST } from '../../src/server/provisioning/drivers/docker-engine';
import { createDockerDriver } from '../../src/server/provisioning/drivers/docker';
import type { NodeObservation, NodeSpec } from '../../src/server/provisioning/provisioner';
import { GALA_KEY } from '../helpers/users';
import { readUntil } from '../helpers/wait';
import { docker, killNode, removeOurs } from './cli';
import { ensureNodeImage, NODE_IMAGE } from './node-image';

// What the node monitor samples of real nodes on the one-host Swarm of the tests: observe() and logs().

const driver = createDockerDriver(connectDocker({ tlsVerify: false }));
const spec = (serviceId: string, key = GALA_KEY): NodeSpec => ({
  serviceId,
  userId: randomUUID(),
  product: 'TOWNSTAR',
  image: NODE_IMAGE,
  cpus: 0.1,
  memoryMb: 32,
  pool: null,
  key,
  machine: null,
});
const ids: string[] = [];
const newId = () => {
  const id = randomUUID();
  ids.push(id);
  return id;
};
const nameOf = (id: string) => `nh-${id.slice(0, 12)}`;

/**
 * A Docker Engine behind a proxy that counts the HTTP requests reaching it: what the engine is
 * asked, whatever path the client's code takes to ask it.
 */
async function countedEngine() {
  const dir = mkdtempSync(join(tmpdir(), 'nh-counted-'));
  const socketPath = join(dir, 'docker.sock');
  const requests: string[] = [];
  const server = createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`);
    const upstream = request({ socketPath: DEFAULT_DOCKER_HOST.slice('unix://'.length), path: req.url, method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', (e) => res.destroy(e));
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(socketPath, resolve));
  return {
    docker: connectDocker({ host: `unix://${socketPath}`, tlsVerify: false }),
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())).finally(() => rmSync(dir, { recursive: true, force: true })),
  };
}

/** Reads every 0.3 s until `done` holds or the time is up, and returns the last reading. */
const sampleUntil = <T>(read: () => Promise<T>, done: (v: T) => boolean, timeoutMs = 60_000): Promise<T> => readUntil(read, done, timeoutMs, 300);
const observed = async (id: string) => (await driver.observe()).find((o) => o.serviceId === id);
const onlineNode = (id: string) =>
  sampleUntil(
    () => observed(id),
    (o) => o?.state === 'online',
  );
/** A log line: the engine's timestamp (RFC 3339, nanoseconds), a space, and what the node wrote. */
const LINE = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z /;
const text = (line: string) => line.replace(LINE, '');

beforeAll(() => ensureNodeImage());
afterAll(() => removeOurs(ids));

it("sees a crashed node restarting within Swarm's restart delay, then online in a new run on this host, with exit code 137", async () => {
  const id = newId();
  await driver.install(spec(id));
  const before = await onlineNode(id);
  expect(before).toEqual({ serviceId: id, state: 'online', taskId: expect.any(String), host: hostname(), exitCode: null, reason: null });

  killNode(id);
  const killedAt = Date.now();
  const seen: { o: NodeObservation | undefined; at: number }[] = [];
  // Sampled every 0.1 s until it is online in a new run (or a minute has passed).
  await readUntil(
    async () => {
      const o = await observed(id);
      seen.push({ o, at: Date.now() - killedAt });
      return o;
    },
    (o) => o?.state === 'online' && o.taskId !== before!.taskId,
    60_000,
    100,
  );
  const restarting = seen.filter((s) => s.o?.state === 'restarting');
  // Swarm waits 5 s before it starts the node again: sampled every 0.1 s, it is seen restarting well within that.
  expect(restarting.length).toBeGreaterThan(0);
  expect(restarting[0]!.at).toBeLessThan(5_000);
  expect(
    restarting.some(({ o }) => o!.taskId === null),
    'seen in the delay, its next run not yet started',
  ).toBe(true);
  for (const { o } of restarting) {
    // The run that ended keeps its id until Swarm has made the next (a sweep may fall in that
    // moment); the next has none while it waits in the delay, and its own once it is started.
    expect(o).toEqual({
      serviceId: id,
      state: 'restarting',
      taskId: o!.taskId,
      host: o!.taskId ? hostname() : null,
      exitCode: 137,
      reason: 'task: non-zero exit (137)',
    });
  }
  const after = await observed(id);
  expect(after).toEqual({ serviceId: id, state: 'online', taskId: expect.any(String), host: hostname(), exitCode: 137, reason: null });
  expect(after!.taskId).not.toBe(before!.taskId);

  // Both runs' lines, oldest first, cut to the tail asked for (Swarm alone sends that many of each run).
  const all = await sampleUntil(
    () => driver.logs(id, 1000),
    (l) => l.filter((line) => text(line).startsWith('node starting')).length === 2,
    30_000,
  );
  expect(all.filter((line) => text(line).startsWith('node starting'))).toHaveLength(2);
  expect([...all].sort()).toEqual(all);
  for (const line of all) expect(line).toMatch(LINE);
  // A heartbeat may come between two reads: read until two reads of all the lines agree around the tail's.
  for (let attempt = 1; ; attempt++) {
    const [whole, tail, again] = [await driver.logs(id, 1000), await driver.logs(id, 3), await driver.logs(id, 1000)];
    if (whole.join('\n') !== again.join('\n') && attempt < 5) continue;
    expect(tail).toEqual(whole.slice(-3));
    break;
  }
});

it('observes 1 node and 5 nodes in the same three engine requests, and asks only of services with our label', async () => {
  const engine = await countedEngine();
  const notOurs = `not-ours-${randomUUID().slice(0, 8)}`;
  docker('service', 'create', '-d', '--name', notOurs, '--label', 'nodeharbor.other=1', NODE_IMAGE);
  try {
    const counted = createDockerDriver(engine.docker);
    const nodes = [newId()];
    await driver.install(spec(nodes[0]!));
    engine.requests.length = 0;
    const one = await counted.observe();
    const forOne = engine.requests.splice(0);
    for (let i = 0; i < 4; i++) nodes.push(newId());
    for (const id of nodes.slice(1)) await driver.install(spec(id));
    const five = await counted.observe();
    const forFive = engine.requests.splice(0);

    expect(one.map((o) => o.serviceId)).toContain(nodes[0]);
    for (const id of nodes) expect(five.map((o) => o.serviceId)).toContain(id);
    const asked = (requests: string[]) => requests.map((r) => r.replace(/^GET \/(v[\d.]+\/)?(\w+)\?.*$|^GET \/(v[\d.]+\/)?(\w+)$/, '$2$4')).sort();
    expect(forOne).toHaveLength(3);
    expect(forFive).toHaveLength(3);
    expect(asked(forOne)).toEqual(['nodes', 'services', 'tasks']);
    expect(asked(forFive)).toEqual(['nodes', 'services', 'tasks']);

    // The tasks asked for are those of the services with our label, all at once, and no other's.
    const tasksQuery = new URLSearchParams(forFive.find((r) => /\/tasks\?/.test(r))!.split('?')[1]);
    const serviceFilter = (JSON.parse(tasksQuery.get('filters')!) as { service: string[] }).service;
    const labelled = docker('service', 'ls', '--filter', 'label=nodeharbor.service_id', '--format', '{{.Name}}').split('\n').filter(Boolean);
    const labelledIds = labelled.map((name) => docker('service', 'inspect', '--format', '{{.ID}}', name));
    expect([...serviceFilter].sort()).toEqual([...labelledIds].sort());
    expect(serviceFilter).not.toContain(docker('service', 'inspect', '--format', '{{.ID}}', notOurs));
    expect(five.map((o) => o.serviceId)).not.toContain('');
  } finally {
    docker('service', 'rm', notOurs);
    await engine.close();
  }
});

it("observes a node no host can fit offline, with Swarm's reason", async () => {
  const id = newId();
  await driver.install({ ...spec(id), memoryMb: 256 * 1024 });
  const o = await sampleUntil(
    () => observed(id),
    (v) => !!v?.reason?.includes('no suitable node'),
    30_000,
  );
  expect(o).toEqual({
    serviceId: id,
    state: 'offline',
    taskId: expect.any(String),
    host: null,
    exitCode: null,
    reason: expect.stringContaining('no suitable node (insufficient resources'),
  });
  await driver.uninstall(id);
});

it("answers a LEAK key node's lines as the node wrote them, key and all: redacting is the server's", async () => {
  const id = newId();
  // Every character that URL-encoding changes in a key of base64 characters.
  const key = `LEAK${randomBytes(9).toString('hex')}+/=`;
  await driver.install(spec(id, key));
  const lines = await sampleUntil(
    () => driver.logs(id, 100),
    (l) => l.some((line) => text(line).startsWith('debug key_url=')),
    30_000,
  );
  const written = lines.map(text);
  const expected = [`debug key=${key}`, `debug key_b64=${Buffer.from(key).toString('base64')}`, `debug key_url=${encodeURIComponent(key)}`];
  for (const line of expected) expect(written).toContain(line);
  expect(written.indexOf(`node starting, key of ${key.length} characters`)).toBeLessThan(written.indexOf(expected[0]!));
  expect(written.indexOf(expected[0]!)).toBeLessThan(written.indexOf(expected[2]!));
  await driver.uninstall(id);
});

it('answers what a node writes to stderr as well as to stdout, in the order it was written', async () => {
  const id = newId();
  await driver.install(spec(id));
  docker(
    'service',
    'update',
    '-d',
    '--entrypoint',
    "/bin/busybox sh -c 'echo to-stderr >&2; /bin/busybox sleep 1; echo to-stdout; exec /bin/busybox sh /bin/node'",
    nameOf(id),
  );
  const lines = await sampleUntil(
    () => driver.logs(id, 100),
    (l) => l.some((line) => text(line) === 'to-stdout'),
    30_000,
  );
  const written = lines.map(text);
  expect(written).toContain('to-stderr');
  expect(written.indexOf('to-stderr')).toBeLessThan(written.indexOf('to-stdout'));
  await driver.uninstall(id);
});
