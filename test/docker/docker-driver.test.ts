import { randomUUID } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { connectDocker } from '../../src/server/provisioning/drivers/docker-engine';
import { createDockerDriver } from '../../src/server/provisioning/drivers/docker';
import type { NodeHealth, NodeSpec } from '../../src/server/provisioning/provisioner';
import { GALA_KEY } from '../helpers/users';
import { describeProvisioner } from '../provisioning/provisioner-contract';
import { docker, removeOurs } from './cli';
import { ensureNodeImage, NODE_IMAGE } from './node-image';

const driver = createDockerDriver(connectDocker({ host: undefined, tlsVerify: false, certPath: undefined }));
const spec = (serviceId: string, image = NODE_IMAGE): NodeSpec => ({
  serviceId, userId: randomUUID(), product: 'TOWNSTAR', image, cpus: 0.1, memoryMb: 32, pool: null, key: GALA_KEY,
});
const ids: string[] = [];
const newId = () => {
  const id = randomUUID();
  ids.push(id);
  return id;
};
beforeAll(() => ensureNodeImage());
afterAll(() => removeOurs(ids));

describeProvisioner('Docker Swarm', async () => ({ driver, spec, cleanup: async (created) => removeOurs(created) }), { runTimeoutMs: 60_000 });

async function until(id: string, wanted: NodeHealth['state']): Promise<NodeHealth> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const h = await driver.health(id);
    if (h.state === wanted || Date.now() > deadline) return h;
    await new Promise((r) => setTimeout(r, 300));
  }
}

it('reports a node whose image is missing as failing, with the engine\'s reason', async () => {
  const id = newId();
  await driver.install(spec(id, 'nodeharbor-test/missing:1'));
  expect(await until(id, 'failing')).toEqual({ state: 'failing', reason: expect.stringContaining('No such image: nodeharbor-test/missing:1') });
  await driver.uninstall(id);
});

it('reports a node no host can fit as starting, with Swarm\'s reason', async () => {
  const id = newId();
  await driver.install({ ...spec(id), memoryMb: 256 * 1024 });
  const deadline = Date.now() + 30_000;
  let h = await driver.health(id);
  while (!(h.state === 'starting' && h.reason) && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 300));
    h = await driver.health(id);
  }
  expect(h).toEqual({ state: 'starting', reason: expect.stringContaining('no suitable node') });
  await driver.uninstall(id);
});

it('places a node of a pool only on that pool\'s hosts', async () => {
  const id = newId();
  await driver.install({ ...spec(id), pool: 'nowhere' });
  const constraints = docker('service', 'inspect', '--format', '{{json .Spec.TaskTemplate.Placement.Constraints}}', `nh-${id.slice(0, 12)}`);
  expect(JSON.parse(constraints)).toEqual(['node.labels.nodeharbor.pool == nowhere']);
  await driver.uninstall(id);
});

it('removes the secret an interrupted install left behind, and lists it until then', async () => {
  const id = newId();
  const file = join(tmpdir(), `nh-left-${id}`);
  writeFileSync(file, 'an old key');
  docker('secret', 'create', '--label', `nodeharbor.service_id=${id}`, `nh-${id.slice(0, 12)}-left`, file);
  rmSync(file);
  expect((await driver.list()).filter((n) => n.serviceId === id)).toEqual([{ serviceId: id, status: 'absent' }]);
  await driver.install(spec(id));
  const secrets = docker('secret', 'ls', '--format', '{{.Name}}', '--filter', `label=nodeharbor.service_id=${id}`).split('\n');
  expect(secrets).toHaveLength(1);
  expect(secrets[0]).not.toBe(`nh-${id.slice(0, 12)}-left`);
  await driver.uninstall(id);
  expect(docker('secret', 'ls', '-q', '--filter', `label=nodeharbor.service_id=${id}`)).toBe('');
});

it('never lists or touches what does not carry our label', async () => {
  const name = `not-ours-${randomUUID().slice(0, 8)}`;
  docker('service', 'create', '-d', '--name', name, '--label', 'nodeharbor.other=1', NODE_IMAGE);
  try {
    expect((await driver.list()).some((n) => n.serviceId.includes('not-ours'))).toBe(false);
    await driver.uninstall(name);
    expect(docker('service', 'ls', '-q', '--filter', `name=${name}`)).not.toBe('');
  } finally {
    docker('service', 'rm', name);
  }
});
