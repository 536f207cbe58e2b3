import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
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
  serviceId, userId: randomUUID(), product: 'TOWNSTAR', image: 'nodeharbor/townstar-node:1', cpus: 1, memoryMb: 1024, pool: null, key: GALA_KEY,
});

describeProvisioner('simulated', async () => ({
  driver: createSimulatedDriver(t.db, { installSeconds: 0, deleteSeconds: 0 }),
  spec,
  crash: (serviceId) => simulateCrash(t.db, serviceId),
  cleanup: async (ids) => {
    await t.db.query('delete from nodeharbor.simulated_nodes where service_id = any($1::uuid[])', [ids]);
  },
}), { runTimeoutMs: 1000, restartTimeoutMs: 10_000 });

it('takes the configured time to install, once, and never stores the key', async () => {
  const driver = createSimulatedDriver(t.db, { installSeconds: 1, deleteSeconds: 0 });
  const serviceId = randomUUID();
  const started = Date.now();
  await driver.install(spec(serviceId));
  expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
  const again = Date.now();
  await driver.install(spec(serviceId));
  expect(Date.now() - again).toBeLessThan(500);
  const { rows } = await t.db.query('select * from nodeharbor.simulated_nodes where service_id = $1', [serviceId]);
  expect(rows).toEqual([expect.objectContaining({ installs: 1, state: 'running' })]);
  expect(JSON.stringify(rows)).not.toContain(GALA_KEY);
  await driver.uninstall(serviceId);
});

it('crashes running nodes as SIMULATED_NODE_FAULTS says, and none without it', async () => {
  const calm = createSimulatedDriver(t.db, { installSeconds: 0, deleteSeconds: 0 });
  const faulty = createSimulatedDriver(t.db, { installSeconds: 0, deleteSeconds: 0, faultPercent: 100 });
  const ids: string[] = [randomUUID(), randomUUID()];
  for (const id of ids) await calm.install(spec(id));
  const ours = async (driver: typeof calm) => (await driver.observe()).filter((o) => ids.includes(o.serviceId));
  expect((await ours(calm)).map((o) => o.state)).toEqual(['online', 'online']);
  const crashed = await ours(faulty);
  expect(crashed.map((o) => [o.state, o.exitCode])).toEqual([['restarting', 137], ['restarting', 137]]);
  await t.db.query('delete from nodeharbor.simulated_nodes where service_id = any($1::uuid[])', [ids]);
});
