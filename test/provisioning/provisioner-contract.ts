import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NodeHealth, NodeSpec, Provisioner } from '../../src/server/provisioning/provisioner';

export type ContractSetup = {
  driver: Provisioner;
  /** A node spec the engine can run. */
  spec(serviceId: string): NodeSpec;
  /** Removes whatever the tests left in the engine. */
  cleanup(serviceIds: string[]): Promise<void>;
};

async function healthOf(driver: Provisioner, serviceId: string, wanted: NodeHealth['state'], timeoutMs: number): Promise<NodeHealth> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const h = await driver.health(serviceId);
    if (h.state === wanted || Date.now() > deadline) return h;
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** What every driver promises (provisioner.ts): idempotent methods, honest status and health, a list of its own nodes only. */
export function describeProvisioner(name: string, setup: () => Promise<ContractSetup>, opts: { runTimeoutMs: number }): void {
  describe(`the ${name} driver keeps the provisioner's contract`, () => {
    let c: ContractSetup;
    const ids: string[] = [];
    const newId = () => {
      const id = randomUUID();
      ids.push(id);
      return id;
    };
    beforeAll(async () => {
      c = await setup();
    });
    afterAll(() => c?.cleanup(ids));

    it('installs once however often it is asked, and the node runs', async () => {
      const id = newId();
      expect(await c.driver.status(id)).toBe('absent');
      expect(await c.driver.health(id)).toEqual({ state: 'absent' });
      await c.driver.install(c.spec(id));
      await c.driver.install(c.spec(id));
      expect(await c.driver.status(id)).toBe('running');
      expect((await c.driver.list()).filter((n) => n.serviceId === id)).toEqual([{ serviceId: id, status: 'running' }]);
      const h = await healthOf(c.driver, id, 'running', opts.runTimeoutMs);
      expect(h).toEqual({ state: 'running', since: expect.any(Date) });
    });

    it('stops and starts a node, each twice without harm', async () => {
      const id = newId();
      await c.driver.install(c.spec(id));
      await c.driver.stop(id);
      await c.driver.stop(id);
      expect(await c.driver.status(id)).toBe('stopped');
      expect(await c.driver.health(id)).toEqual({ state: 'stopped' });
      expect((await c.driver.list()).find((n) => n.serviceId === id)?.status).toBe('stopped');
      await c.driver.start(id);
      await c.driver.start(id);
      expect(await c.driver.status(id)).toBe('running');
      expect((await healthOf(c.driver, id, 'running', opts.runTimeoutMs)).state).toBe('running');
    });

    it('uninstalls twice without harm, and then nothing of the node is listed', async () => {
      const id = newId();
      await c.driver.install(c.spec(id));
      await c.driver.uninstall(id);
      await c.driver.uninstall(id);
      expect(await c.driver.status(id)).toBe('absent');
      expect((await c.driver.list()).some((n) => n.serviceId === id)).toBe(false);
    });

    it('creates nothing when asked to stop or start a node that is not there', async () => {
      const id = newId();
      await c.driver.start(id);
      await c.driver.stop(id);
      expect(await c.driver.status(id)).toBe('absent');
      expect((await c.driver.list()).some((n) => n.serviceId === id)).toBe(false);
    });
  });
}
