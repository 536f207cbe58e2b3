import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createSimulatedDriver } from '../../src/server/provisioning/drivers/simulated';
import { createTestDatabase, type TestDatabase } from '../helpers/database';

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
});
afterAll(async () => {
  await t.db.close();
  await t.drop();
});

it('takes the configured time to install, and installs, stops, starts and removes a node once each', async () => {
  const driver = createSimulatedDriver(t.db, { installSeconds: 1, deleteSeconds: 0 });
  const serviceId = randomUUID();
  expect(await driver.status(serviceId)).toBe('absent');
  const started = Date.now();
  await driver.install({ serviceId, productId: null });
  expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
  expect(await driver.status(serviceId)).toBe('running');
  const again = Date.now();
  await driver.install({ serviceId, productId: null });
  expect(Date.now() - again).toBeLessThan(500);
  const { rows } = await t.db.query('select installs from nodeharbor.simulated_nodes where service_id = $1', [serviceId]);
  expect(rows).toEqual([{ installs: 1 }]);
  await driver.stop(serviceId);
  await driver.stop(serviceId);
  expect(await driver.status(serviceId)).toBe('stopped');
  await driver.start(serviceId);
  expect(await driver.status(serviceId)).toBe('running');
  await driver.uninstall(serviceId);
  await driver.uninstall(serviceId);
  expect(await driver.status(serviceId)).toBe('absent');
  // Stopping or starting a node that is not there creates none.
  await driver.start(serviceId);
  expect(await driver.status(serviceId)).toBe('absent');
});
