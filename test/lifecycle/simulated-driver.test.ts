import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it, vi } from 'vitest';
import { createSimulatedDriver, simulateCrash } from '../../src/server/provisioning/drivers/simulated';
import type { NodeSpec } from '../../src/server/provisioning/provisioner';
import { createTestDatabase, type TestDatabase } from '../helpers/database';
import { GALA_KEY } from '../helpers/users';
import { describeProvisioner } from '../provisioning/provisioner-contract';

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
});
afterAll(async () => {
  await t.db.close();
  await t.drop();
});

const spec = (serviceId: string): NodeSpec => ({
  serviceId,
  userId: randomUUID(),
  product: 'TOWNSTAR',
  image: 'nodeharbor/townstar-node:1',
  cpus: 1,
  memoryMb: 1024,
  pool: null,
  key: GALA_KEY,
  machine: null,
});

describeProvisioner(
  'simulated',
  async () => ({
    driver: createSimulatedDriver(t.db, { installSeconds: 0, deleteSeconds: 0 }),
    spec,
    crash: (serviceId) => simulateCrash(t.db, serviceId),
    cleanup: async (ids) => {
      await t.db.query('delete from nodeharbor.simulated_nodes where service_id = any($1::uuid[])', [ids]);
    },
  }),
  { runTimeoutMs: 1000, restartTimeoutMs: 10_000 },
);

it('takes the configured time to install and to delete, each once, and never stores the key', async () => {
  // A test clock: each wait is recorded, and the node is not there until the wait is over.
  const waits: number[] = [];
  let release = () => {};
  const sleep = (seconds: number) => {
    waits.push(seconds);
    return new Promise<void>((r) => (release = r));
  };
  const driver = createSimulatedDriver(t.db, { installSeconds: 90, deleteSeconds: 30, sleep });
  const serviceId = randomUUID();
  const installing = driver.install(spec(serviceId));
  await vi.waitFor(() => expect(waits).toEqual([90]));
  expect(await driver.status(serviceId)).toBe('absent');
  release();
  await installing;
  expect(await driver.status(serviceId)).toBe('running');
  await driver.install(spec(serviceId));
  expect(waits).toEqual([90]);
  const { rows } = await t.db.query('select * from nodeharbor.simulated_nodes where service_id = $1', [serviceId]);
  expect(rows).toEqual([expect.objectContaining({ installs: 1, state: 'running' })]);
  expect(JSON.stringify(rows)).not.toContain(GALA_KEY);
  const deleting = driver.uninstall(serviceId);
  await vi.waitFor(() => expect(waits).toEqual([90, 30]));
  expect(await driver.status(serviceId)).toBe('running');
  release();
  await deleting;
  expect(await driver.status(serviceId)).toBe('absent');
  await driver.uninstall(serviceId);
  expect(waits).toEqual([90, 30]);
});

it('crashes running nodes as SIMULATED_NODE_FAULTS says, and none without it', async () => {
  const calm = createSimulatedDriver(t.db, { installSeconds: 0, deleteSeconds: 0 });
  const faulty = createSimulatedDriver(t.db, { installSeconds: 0, deleteSeconds: 0, faultPercent: 100 });
  const ids: string[] = [randomUUID(), randomUUID()];
  for (const id of ids) await calm.install(spec(id));
  const ours = async (driver: typeof calm) => (await driver.observe()).filter((o) => ids.includes(o.serviceId));
  expect((await ours(calm)).map((o) => o.state)).toEqual(['online', 'online']);
  const crashed = await ours(faulty);
  expect(crashed.map((o) => [o.state, o.exitCode])).toEqual([
    ['restarting', 137],
    ['restarting', 137],
  ]);
  await t.db.query('delete from nodeharbor.simulated_nodes where service_id = any($1::uuid[])', [ids]);
});
