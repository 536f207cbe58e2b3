import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NodeHealth, NodeObservation, NodeSpec, Provisioner } from '../../src/server/provisioning/provisioner';
import { readUntil } from '../helpers/wait';

export type ContractSetup = {
  driver: Provisioner;
  /** A node spec the engine can run. */
  spec(serviceId: string): NodeSpec;
  /** Ends the node's current run as a kill -9 would: exit code 137; the engine starts it again. */
  crash(serviceId: string): Promise<void>;
  /** Removes whatever the tests left in the engine for these service ids (called once, after the cases, failed or not). */
  cleanup(serviceIds: string[]): Promise<void>;
};

function healthOf(driver: Provisioner, serviceId: string, wanted: NodeHealth['state'], timeoutMs: number): Promise<NodeHealth> {
  return readUntil(
    () => driver.health(serviceId),
    (h) => h.state === wanted,
    timeoutMs,
    200,
  );
}

/** The node's observations, sampled until `done` holds of one or the time is up; the last is the one that holds, or the last seen. */
async function observeUntil(driver: Provisioner, serviceId: string, done: (o: NodeObservation | undefined) => boolean, timeoutMs: number) {
  const seen: (NodeObservation | undefined)[] = [];
  await readUntil(
    async () => {
      const o = (await driver.observe()).find((n) => n.serviceId === serviceId);
      seen.push(o);
      return o;
    },
    done,
    timeoutMs,
    200,
  );
  return seen;
}

/**
 * What every driver promises (provisioner.ts): idempotent methods, honest status and health, a
 * list of its own nodes, and what the node monitor samples of them. `runTimeoutMs`: how long a node
 * may take to run on this engine; `restartTimeoutMs`: how long it may take to run again after a crash.
 */
export function describeProvisioner(name: string, setup: () => Promise<ContractSetup>, opts: { runTimeoutMs: number; restartTimeoutMs: number }): void {
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

    it('observes a running node online with its run, a stopped one stopped, and nothing of an uninstalled one or of anything not its own', async () => {
      const [running, stopped, removed] = [newId(), newId(), newId()];
      for (const id of [running, stopped, removed]) await c.driver.install(c.spec(id));
      await c.driver.stop(stopped);
      await c.driver.uninstall(removed);
      const seen = await observeUntil(c.driver, running, (o) => o?.state === 'online', opts.runTimeoutMs);
      // Never run before, it has no exit code yet. Where it runs is the driver's to say.
      expect(seen.at(-1)).toEqual({ serviceId: running, state: 'online', taskId: expect.any(String), host: seen.at(-1)?.host, exitCode: null, reason: null });
      const all = await c.driver.observe();
      expect(all.filter((o) => o.serviceId === stopped)).toEqual([expect.objectContaining({ serviceId: stopped, state: 'stopped' })]);
      expect(all.filter((o) => o.serviceId === removed)).toEqual([]);
      // One observation per node, and only of what the driver lists as its own.
      expect(new Set(all.map((o) => o.serviceId)).size).toBe(all.length);
      const own = new Set((await c.driver.list()).map((n) => n.serviceId));
      for (const o of all) expect(own.has(o.serviceId), `${o.serviceId} is the driver's`).toBe(true);
    });

    it('observes a crashed node restarting, then online again in a new run, with the exit code of the run that ended', async () => {
      const id = newId();
      await c.driver.install(c.spec(id));
      const before = (await observeUntil(c.driver, id, (o) => o?.state === 'online', opts.runTimeoutMs)).at(-1);
      expect(before).toMatchObject({ state: 'online', taskId: expect.any(String) });
      await c.crash(id);
      const seen = await observeUntil(c.driver, id, (o) => o?.state === 'online' && o.taskId !== before!.taskId, opts.restartTimeoutMs);
      expect(seen.at(-1)).toMatchObject({ serviceId: id, state: 'online', taskId: expect.any(String), exitCode: 137, reason: null });
      expect(seen.at(-1)!.taskId).not.toBe(before!.taskId);
      // In between, it was still seen in its old run (the engine had not noticed yet), or restarting.
      for (const o of seen.slice(0, -1)) {
        if (o?.state === 'online') expect(o.taskId).toBe(before!.taskId);
        else expect(o).toMatchObject({ serviceId: id, state: 'restarting' });
      }
    });

    it('samples what a running node uses, within its limits, and nothing of a stopped node or of one that is not there', async () => {
      const [running, stopped, removed] = [newId(), newId(), newId()];
      for (const id of [running, stopped, removed]) await c.driver.install(c.spec(id));
      await c.driver.stop(stopped);
      await c.driver.uninstall(removed);
      await observeUntil(c.driver, running, (o) => o?.state === 'online', opts.runTimeoutMs);
      const budget = () => ({ calls: 100, deadline: AbortSignal.timeout(30_000) });
      // The engine's first reading of a container that has just started may lack the one before it.
      const sample = await readUntil(
        async () => (await c.driver.usage(budget())).find((u) => u.serviceId === running),
        (u) => u !== undefined,
        opts.runTimeoutMs,
        200,
      );
      const limit = c.spec(running).memoryMb * 1024 * 1024;
      expect(sample).toEqual({
        serviceId: running,
        run: expect.any(String),
        cpuPercent: expect.any(Number),
        memoryBytes: expect.any(Number),
        memoryLimitBytes: limit,
        rxBytes: sample?.rxBytes === null ? null : expect.any(Number),
        txBytes: sample?.txBytes === null ? null : expect.any(Number),
      });
      expect(sample!.cpuPercent >= 0 && sample!.cpuPercent <= 100, `${sample!.cpuPercent}% of its CPU limit`).toBe(true);
      expect(sample!.memoryBytes > 0 && sample!.memoryBytes <= limit, `${sample!.memoryBytes} bytes of ${limit}`).toBe(true);
      const all = await c.driver.usage(budget());
      expect(all.filter((u) => u.serviceId === stopped || u.serviceId === removed)).toEqual([]);
      expect(new Set(all.map((u) => u.serviceId)).size).toBe(all.length);
      const own = new Set((await c.driver.list()).map((n) => n.serviceId));
      for (const u of all) expect(own.has(u.serviceId), `${u.serviceId} is the driver's`).toBe(true);
      // Past its deadline, it makes no call and answers none.
      expect(await c.driver.usage({ calls: 100, deadline: AbortSignal.abort() })).toEqual([]);
    });

    it('hands a running node a new key in a new run, keeps a stopped one stopped, and creates nothing for a node that is not there', async () => {
      const [running, stopped, missing] = [newId(), newId(), newId()];
      await c.driver.install(c.spec(running));
      await c.driver.install(c.spec(stopped));
      await c.driver.stop(stopped);
      const before = (await observeUntil(c.driver, running, (o) => o?.state === 'online', opts.runTimeoutMs)).at(-1);
      expect(before).toMatchObject({ state: 'online', taskId: expect.any(String) });
      const rotated = { ...c.spec(running), key: c.spec(running).key.replace(/^./, 'B') };
      await c.driver.updateKey(rotated);
      // Asked again (a job run twice): the same end, one node.
      await c.driver.updateKey(rotated);
      const seen = await observeUntil(c.driver, running, (o) => o?.state === 'online' && o.taskId !== before!.taskId, opts.restartTimeoutMs);
      expect(seen.at(-1)).toMatchObject({ serviceId: running, state: 'online' });
      expect(seen.at(-1)!.taskId).not.toBe(before!.taskId);
      expect(await listed(running)).toEqual([{ serviceId: running, status: 'running' }]);
      await c.driver.updateKey({ ...c.spec(stopped), key: rotated.key });
      expect(await c.driver.status(stopped)).toBe('stopped');
      expect(await c.driver.health(stopped)).toEqual({ state: 'stopped' });
      await c.driver.updateKey({ ...c.spec(missing), key: rotated.key });
      expect(await c.driver.status(missing)).toBe('absent');
      expect(await listed(missing)).toEqual([]);
    });

    it('restarts a running node in a new run, keeps a stopped one stopped, and creates nothing for a node that is not there', async () => {
      const [running, stopped, missing] = [newId(), newId(), newId()];
      await c.driver.install(c.spec(running));
      await c.driver.install(c.spec(stopped));
      await c.driver.stop(stopped);
      const before = (await observeUntil(c.driver, running, (o) => o?.state === 'online', opts.runTimeoutMs)).at(-1);
      expect(before).toMatchObject({ state: 'online', taskId: expect.any(String) });
      await c.driver.restart(running);
      const seen = await observeUntil(c.driver, running, (o) => o?.state === 'online' && o.taskId !== before!.taskId, opts.restartTimeoutMs);
      expect(seen.at(-1)).toMatchObject({ serviceId: running, state: 'online' });
      expect(seen.at(-1)!.taskId).not.toBe(before!.taskId);
      // Still one node, running.
      expect(await listed(running)).toEqual([{ serviceId: running, status: 'running' }]);
      await c.driver.restart(stopped);
      expect(await c.driver.status(stopped)).toBe('stopped');
      expect(await c.driver.health(stopped)).toEqual({ state: 'stopped' });
      expect((await c.driver.observe()).filter((o) => o.serviceId === stopped)).toEqual([expect.objectContaining({ state: 'stopped' })]);
      await c.driver.restart(missing);
      expect(await c.driver.status(missing)).toBe('absent');
      expect(await listed(missing)).toEqual([]);
    });

    it("answers a running node's last lines, no more than asked for, and none for a node that is not there", async () => {
      const id = newId();
      await c.driver.install(c.spec(id));
      await observeUntil(c.driver, id, (o) => o?.state === 'online', opts.runTimeoutMs);
      const lines = await readUntil(
        () => c.driver.logs(id, 5),
        (l) => l.length > 0,
        opts.runTimeoutMs,
        300,
      );
      expect(lines.length).toBeGreaterThan(0);
      expect(lines.length).toBeLessThanOrEqual(5);
      for (const line of lines) expect(typeof line).toBe('string');
      const last = await c.driver.logs(id, 1);
      expect(last).toHaveLength(1);
      expect(await c.driver.logs(randomUUID(), 5)).toEqual([]);
      await c.driver.uninstall(id);
      expect(await c.driver.logs(id, 5)).toEqual([]);
    });
  });
}
