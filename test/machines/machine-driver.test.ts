import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createJobDeps } from '../../src/server/jobs/app-worker';
import type { JobDeps } from '../../src/server/jobs/task';
import { createProductRouter } from '../../src/server/provisioning/drivers/by-product';
import { createMachineDriver } from '../../src/server/provisioning/drivers/machine';
import { createSimulatedDriver } from '../../src/server/provisioning/drivers/simulated';
import { powerNode } from '../../src/server/jobs/tasks/power-node';
import { installNode } from '../../src/server/provisioning/install-node';
import { createHetznerProvider } from '../../src/server/provisioning/machines/hetzner';
import type { Provisioner } from '../../src/server/provisioning/provisioner';
import { reconcileNodes } from '../../src/server/provisioning/reconciler';
import { startTestServer, type TestServer } from '../helpers/server';
import { until } from '../helpers/wait';
import { createService, createTestUser, GALA_KEY, LICENCE_KEY, MASTER_NODE, type TestUser } from '../helpers/users';
import { startHetznerStandIn, type HetznerStandIn } from './hetzner-standin';

// The machine driver on the Hetzner stand-in, through the app's own install, reconciler and
// functions, with the agent played by this test over HTTP as nodes/agent does it. The Docker pass
// boots the real user data and agent (test/docker/town-star-machine.test.ts).

let s: TestServer;
let cloud: HetznerStandIn;
let deps: JobDeps;
let machineDriver: Provisioner;
let owner: TestUser;

const LABEL = 'nodeharbor.service_id';
/** The boot script the driver is given here: its token, as the real one carries it (nodes/townstar-machine). */
const userData = (token: string) => `#!/bin/sh\nNODEHARBOR_BOOTSTRAP_TOKEN=${token}\n`;

async function fn(name: string, body: unknown, agentToken?: string) {
  const res = await fetch(`${s.url}/functions/v1/${name}`, {
    method: 'POST',
    headers: { apikey: s.anonKey, 'content-type': 'application/json', ...(agentToken ? { 'X-Agent-Token': agentToken } : {}) },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

const serverOf = (id: string) => [...cloud.servers.values()].find((m) => m.labels[LABEL] === id);

/** What the agent does at boot: the token from its user data traded for the key, then a first report. */
async function boot(id: string, report: Record<string, unknown> = { state: 'running', status: 'Node running', logs: ['started'] }) {
  const server = await until(`the server of ${id}`, () => serverOf(id));
  const token = /NODEHARBOR_BOOTSTRAP_TOKEN=(\S+)/.exec(server.userData)![1]!;
  const claimed = await fn('node-bootstrap', { token });
  expect(claimed.status).toBe(200);
  const agent = claimed.body.agent_token as string;
  expect((await fn('node-heartbeat', report, agent)).status).toBe(200);
  return { agent, key: claimed.body.api_key as string };
}

const state = async (id: string) =>
  (
    await s.deps.db.query<{ state: string; provisioning_error: string | null }>(
      'select state::text as state, provisioning_error from private.services where id = $1',
      [id],
    )
  ).rows[0]!;

beforeAll(async () => {
  s = await startTestServer({ RATE_LIMITS_ENABLED: 'false', PROVISION_INSTALL_SECONDS: '0', INSTALL_SETTLE_SECONDS: '0', INSTALL_TIMEOUT_SECONDS: '20' });
  await s.deps.db.query(
    `update public.products set node_driver = 'machine', machine_server_type = 'cx22', machine_image = 'debian-12',
            machine_locations = array['fsn1', 'nbg1'], machine_workload = 'townstar'
      where base_product_code = 'TOWNSTAR'`,
  );
  cloud = await startHetznerStandIn({ actionPolls: 1 });
  const provider = createHetznerProvider({ token: cloud.token, baseUrl: cloud.url, pollMs: 10 });
  machineDriver = createMachineDriver(s.deps.db, provider, { userData, sshKeys: ['ops'], firewalls: ['nodeharbor-nodes'], heartbeatSeconds: 1 });
  const swarm = createSimulatedDriver(s.deps.db, { installSeconds: 0, deleteSeconds: 0, faultPercent: 0 });
  deps = { ...(await createJobDeps(s.deps)), provisioner: createProductRouter(s.deps.db, { swarm, machine: machineDriver }) };
  owner = await createTestUser(s, { credits: 500 });
});
afterAll(async () => {
  await cloud?.close();
  await s?.stop();
});
beforeEach(() => {
  cloud.fail.capacityIn.clear();
  cloud.fail.errors.length = 0;
});

describe('a Town Star node on a machine of its own', () => {
  it('rents a labelled server with the boot script and no key, and is active at the first healthy report', async () => {
    const id = await createService(owner, 'machine-a');
    const installing = installNode(deps, id);
    const { key } = await boot(id);
    await installing;
    expect(key).toBe(GALA_KEY);
    expect(await state(id)).toEqual({ state: 'active', provisioning_error: null });
    const server = serverOf(id)!;
    expect(server).toMatchObject({ name: `nh-${id.slice(0, 12)}`, serverType: 'cx22', image: 'debian-12', location: 'fsn1', sshKeys: ['ops'] });
    expect(server.labels).toEqual({ 'managed-by': 'nodeharbor', [LABEL]: id, 'nodeharbor.user_id': owner.id, 'nodeharbor.product': 'TOWNSTAR' });
    // The key is in nothing the provider keeps: no user data, no label, no request.
    expect(JSON.stringify(cloud.requests)).not.toContain(GALA_KEY);
    const { rows } = await s.deps.db.query<{ t: string }>(
      `select coalesce(string_agg(payload::text || coalesce(last_error, ''), ' '), '') as t from nodeharbor.jobs`,
    );
    expect(rows[0]!.t).not.toContain(GALA_KEY);
    const { rows: machines } = await s.deps.db.query<{ location: string; ipv4: string }>(
      'select location, host(ipv4) as ipv4 from private.machines where service_id = $1',
      [id],
    );
    expect(machines[0]).toEqual({ location: 'fsn1', ipv4: server.ipv4 });
    // Its owner reads where it runs, and nothing else of the machine.
    const seen = await owner.client.from('services').select('location').eq('id', id).single();
    expect(seen.data).toEqual({ location: 'fsn1' });
    // A new server runs as made: the install asks for no power action.
    expect(cloud.requests.filter((r) => /\/actions\/power(on|off)$/.test(r.path))).toEqual([]);
  });

  it("fails the install in Gala's words when Gala refuses the key, and leaves no server", async () => {
    const id = await createService(owner, 'machine-b');
    const installing = installNode(deps, id);
    await boot(id, { state: 'refused', error: 'Error: invalid api key' });
    await installing;
    expect(await state(id)).toEqual({ state: 'failed', provisioning_error: 'Gala refused this API key: Error: invalid api key' });
    expect(serverOf(id)).toBeUndefined();
  });

  it("fails the install at once with the boot script's reason when it stops before its agent runs", async () => {
    const id = await createService(owner, 'machine-j');
    const installing = installNode(deps, id);
    const server = await until(`the server of ${id}`, () => serverOf(id));
    const token = /NODEHARBOR_BOOTSTRAP_TOKEN=(\S+)/.exec(server.userData)![1]!;
    const reason = "Gala's EULA is not accepted (GALA_EULA_ACCEPTED): Gala's node software is not installed";
    expect((await fn('node-boot-failed', { token, reason })).status).toBe(200);
    await installing;
    expect(await state(id)).toEqual({ state: 'failed', provisioning_error: `The server could not set the node up: ${reason}` });
    expect(serverOf(id)).toBeUndefined();
  });

  it('tries the next location when one is full or the provider is busy, and fails with every reason when all are full', async () => {
    cloud.fail.capacityIn.add('fsn1');
    cloud.rateLimit(1, { path: /^\/v1\/servers$/ });
    const id = await createService(owner, 'machine-c');
    const installing = installNode(deps, id);
    await boot(id);
    await installing;
    expect(serverOf(id)!.location).toBe('nbg1');

    cloud.fail.capacityIn.add('nbg1');
    const full = await createService(owner, 'machine-d');
    await installNode(deps, full);
    const failed = await state(full);
    expect(failed.state).toBe('failed');
    expect(failed.provisioning_error).toMatch(/^No cx22 server is available in fsn1, nbg1 \(fsn1: .+; nbg1: .+\)$/);
    expect(serverOf(full)).toBeUndefined();
  });

  it('powers the server off when the service stops and on when it starts, and deletes it with the service', async () => {
    const id = await createService(owner, 'machine-e');
    const installing = installNode(deps, id);
    await boot(id);
    await installing;
    await deps.provisioner.stop(id);
    expect(serverOf(id)!.status).toBe('off');
    expect(await deps.provisioner.health(id)).toEqual({ state: 'stopped' });
    await deps.provisioner.start(id);
    expect(serverOf(id)!.status).toBe('running');
    await deps.provisioner.uninstall(id);
    expect(serverOf(id)).toBeUndefined();
    // Gone already: done.
    await deps.provisioner.uninstall(id);
  });

  it("powers off and on for its owner's Stop and Start, and hands a Restart to the agent once, at its next heartbeat", async () => {
    const id = await createService(owner, 'machine-p');
    const installing = installNode(deps, id);
    const { agent } = await boot(id);
    await installing;
    const act = async (action: 'restart' | 'stop' | 'start') => {
      const { error } = await owner.client.rpc('service_power_action', { p_service_id: id, p_action: action });
      expect(error).toBeNull();
      // The job the RPC queued, as the worker runs it.
      await powerNode.run({ serviceId: id, action }, deps);
    };
    await act('restart');
    // Asked again before the agent reported: still one restart.
    await deps.provisioner.restart(id);
    // The machine stays up: a restart is the agent's, not the provider's.
    expect(serverOf(id)!.status).toBe('running');
    const powerActions = () =>
      cloud.requests.filter((r) => r.path.startsWith(`/v1/servers/${serverOf(id)!.id}/actions/power`)).map((r) => r.path.split('/').pop());
    expect(powerActions()).toEqual([]);
    expect((await fn('node-heartbeat', { state: 'running' }, agent)).body).toEqual({ commands: ['restart'] });
    expect((await fn('node-heartbeat', { state: 'running' }, agent)).body).toEqual({ commands: [] });

    await act('stop');
    expect(serverOf(id)!.status).toBe('off');
    expect((await deps.provisioner.observe()).find((o) => o.serviceId === id)).toMatchObject({ state: 'stopped' });
    // Nothing to restart on a server that is off, and nothing of a server that is not there.
    await deps.provisioner.restart(id);
    await deps.provisioner.restart(randomUUID());
    const { rows } = await s.deps.db.query<{ commands: string[] }>('select commands from private.machines where service_id = $1', [id]);
    expect(rows[0]!.commands).toEqual([]);

    await act('start');
    expect(serverOf(id)!.status).toBe('running');
    expect(powerActions()).toEqual(['poweroff', 'poweron']);
  });

  it('is online while reports arrive and offline once two are missed', async () => {
    const id = await createService(owner, 'machine-f');
    const installing = installNode(deps, id);
    const { agent } = await boot(id);
    await installing;
    const observed = async () => (await deps.provisioner.observe()).find((o) => o.serviceId === id);
    expect(await observed()).toMatchObject({ state: 'online', reason: null, host: `hetzner fsn1 ${serverOf(id)!.ipv4}` });
    await s.deps.db.query(`update private.machines set last_heartbeat_at = now() - interval '3 seconds' where service_id = $1`, [id]);
    expect(await observed()).toMatchObject({ state: 'offline', reason: expect.stringMatching(/^no report from the node for \d+ s$/) });
    await fn('node-heartbeat', { state: 'running' }, agent);
    expect((await observed())!.state).toBe('online');
  });

  it('hands a changed key to the agent once', async () => {
    const id = await createService(owner, 'machine-g');
    const installing = installNode(deps, id);
    const { agent } = await boot(id);
    await installing;
    const newKey = `${'B'.repeat(43)}=`;
    const { error } = await owner.client.rpc('manage_service_operation', { p_service_id: id, p_operation: 'update', p_updates: { api_key: newKey } });
    expect(error).toBeNull();
    // The app's key job, as the worker runs it.
    const spec = { serviceId: id } as Parameters<typeof deps.provisioner.updateKey>[0];
    await deps.provisioner.updateKey({ ...spec, machine: { serverType: 'cx22', image: 'debian-12', locations: ['fsn1'], workload: 'townstar' } });
    expect((await fn('node-heartbeat', { state: 'running' }, agent)).body).toEqual({ commands: ['new-key'] });
    expect(await fn('node-key', {}, agent)).toEqual({ status: 200, body: { api_key: newKey } });
  });

  it('removes an orphan server and makes a missing one again', async () => {
    // A server of ours whose service is no more (its row gone with a restored backup, say).
    const orphan = randomUUID();
    cloud.addServer({ name: `nh-${orphan.slice(0, 12)}`, labels: { 'managed-by': 'nodeharbor', [LABEL]: orphan, 'nodeharbor.product': 'TOWNSTAR' } });
    const missing = await createService(owner, 'machine-i');
    const again = installNode(deps, missing);
    await boot(missing);
    await again;
    cloud.servers.delete(serverOf(missing)!.id);

    const corrections = await reconcileNodes(deps);
    expect(corrections).toEqual(
      expect.arrayContaining([
        { serviceId: orphan, event: 'orphan_removed' },
        { serviceId: missing, event: 'node_recreated' },
      ]),
    );
    expect(serverOf(orphan)).toBeUndefined();
    expect(serverOf(missing)).toBeDefined();
    // The new server has a new token; the old server's agent is shut out.
    const { agent } = await boot(missing);
    expect(agent).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it("with SWARM=off, fails a Swarm product's install saying so, and still runs machine products", async () => {
    const machineOnly = { ...deps, provisioner: createProductRouter(s.deps.db, { swarm: undefined, machine: machineDriver }) };
    const { data, error } = await owner.client.rpc('create_service_securely', {
      p_name: 'swarm-off',
      p_description: null,
      p_api_key: LICENCE_KEY,
      p_product_id: MASTER_NODE,
    });
    if (error) throw error;
    const masterNode = (data as { id: string }).id;
    await installNode(machineOnly, masterNode);
    expect(await state(masterNode)).toEqual({
      state: 'failed',
      provisioning_error:
        'This plan runs its nodes on Docker Swarm, which this NodeHarbor does not use (SWARM=off): the operator must turn it on (README, Running real nodes).',
    });
    const townStar = await createService(owner, 'machine-k');
    const installing = installNode(machineOnly, townStar);
    await boot(townStar);
    await installing;
    expect((await state(townStar)).state).toBe('active');
    expect((await machineOnly.provisioner.list()).map((n) => n.serviceId)).toContain(townStar);
  });
});
