import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NodeHealth, NodeSpec, Provisioner } from '../../src/server/provisioning/provisioner';

export type ContractSetup = {
  driver: Provisioner;
  /** A node spec the engine can run. */
  spec(serviceId: string): NodeSpec;
  /** Removes whatever the tests left in the engine for these service ids (called once, after the cases, failed or not). */
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

/**
 * What every driver promises (provisioner.ts): idempotent methods, honest status and health, and a
 * list of its own nodes. `runTimeoutMs`: how long a node may take to run on this engine.
 */
export function describeProvisioner(name: string, setup: () => Promise<ContractSetup>, opts: { runTimeoutMs: number }): void {
  describe(`the ${name} driver keeps the provisioner's contract`, () => {
    let c: ContractSetup;
    const ids: string[] = [];
    const newId = () => {
      const id = randomUUID();
      ids.push(id);
      return id;
    };
    const listed = async (id: string) => (await c.driver.list()).filter((n) => n.serviceId === id);
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
      expect(await listed(id)).toEqual([{ serviceId: id, status: 'running' }]);
      const h = await healthOf(c.driver, id, 'running', opts.runTimeoutMs);
      expect(h).toEqual({ state: 'running', since: expect.any(Date) });
      if (h.state === 'running') expect(h.since.getTime()).toBeLessThanOrEqual(Date.now() + 1000);
      // Installing a running node again changes nothing, not even when it started.
      await c.driver.install(c.spec(id));
      expect(await listed(id)).toEqual([{ serviceId: id, status: 'running' }]);
      expect(await c.driver.health(id)).toEqual(h);
    });

    it('stops and starts a node, each twice without harm', async () => {
      const id = newId();
      await c.driver.install(c.spec(id));
      await c.driver.stop(id);
      await c.driver.stop(id);
      expect(await c.driver.status(id)).toBe('stopped');
      expect(await c.driver.health(id)).toEqual({ state: 'stopped' });
      expect(await listed(id)).toEqual([{ serviceId: id, status: 'stopped' }]);
      // A stopped node is still installed: installing it does not start it.
      await c.driver.install(c.spec(id));
      expect(await c.driver.status(id)).toBe('stopped');
      await c.driver.start(id);
      await c.driver.start(id);
      expect(await c.driver.status(id)).toBe('running');
      expect(await listed(id)).toEqual([{ serviceId: id, status: 'running' }]);
      expect((await healthOf(c.driver, id, 'running', opts.runTimeoutMs)).state).toBe('running');
    });

    it('uninstalls twice without harm, and then nothing of the node is there or listed', async () => {
      const id = newId();
      await c.driver.install(c.spec(id));
      await c.driver.uninstall(id);
      await c.driver.uninstall(id);
      expect(await c.driver.status(id)).toBe('absent');
      expect(await c.driver.health(id)).toEqual({ state: 'absent' });
      expect(await listed(id)).toEqual([]);
    });

    it('creates nothing when asked to stop, start or uninstall a node that is not there', async () => {
      const id = newId();
      await c.driver.start(id);
      await c.driver.stop(id);
      await c.driver.uninstall(id);
      expect(await c.driver.status(id)).toBe('absent');
      expect(await c.driver.health(id)).toEqual({ state: 'absent' });
      expect(await listed(id)).toEqual([]);
    });

    it('lists each of its nodes once, with its status, and only nodes', async () => {
      const [running, stopped] = [newId(), newId()];
      await c.driver.install(c.spec(running));
      await c.driver.install(c.spec(stopped));
      await c.driver.stop(stopped);
      const all = await c.driver.list();
      expect(all.filter((n) => n.serviceId === running)).toEqual([{ serviceId: running, status: 'running' }]);
      expect(all.filter((n) => n.serviceId === stopped)).toEqual([{ serviceId: stopped, status: 'stopped' }]);
      expect(new Set(all.map((n) => n.serviceId)).size).toBe(all.length);
      for (const n of all) expect(['absent', 'running', 'stopped']).toContain(n.status);
    });
  });
}
