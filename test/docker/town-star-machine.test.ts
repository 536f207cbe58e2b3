import { execFileSync, spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createJobDeps } from '../../src/server/jobs/app-worker';
import { sweepNodes } from '../../src/server/provisioning/node-monitor';
import { reconcileNodes } from '../../src/server/provisioning/reconciler';
import { startLifecycleServer, startSmtp, waitFor } from '../lifecycle/helpers';
import { forceServiceState } from '../helpers/service-state';
import { createTestUser, TOWN_STAR, type TestUser } from '../helpers/users';
import { GALA_STANDIN_DIR, galaKey, galaNodeTarball } from '../machines/gala-node-standin';
import { startHetznerStandIn, type HetznerStandIn } from '../machines/hetzner-standin';
import { importMachineImage, MACHINE_IMAGE, USER_DATA_PATH } from '../machines/machine-image';
import { serviceState } from './lifecycle-nodes';

// The whole Town Star journey on a machine of its own, as an operator runs it: the app's own
// server and worker with MACHINE_PROVIDER=hetzner pointed at the Hetzner stand-in, which "boots"
// each server by running its user data, unchanged, in a container that plays a fresh Debian
// server (test/machines/machine-image.ts), with stand-ins only for the package install, systemd
// and Gala's CLI. The agent, the bootstrap, the heartbeats, the monitor and the reconciler are real.

const RUN = randomBytes(4).toString('hex');
const work = mkdtempSync(join(tmpdir(), 'nh-town-star-'));
const containers = new Map<string, string>();
let cloud: HetznerStandIn;
let downloads: Server;
let s: Awaited<ReturnType<typeof startLifecycleServer>>;
let smtp: Awaited<ReturnType<typeof startSmtp>>;
let owner: TestUser;

const docker = (...args: string[]) => execFileSync('docker', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
const read = (name: string, path: string) => spawnSync('docker', ['exec', name, 'cat', path], { encoding: 'utf8' }).stdout;

/** A server the stand-in made, booted: its user data in place, then the machine started. */
function boot(id: string, userData: string): void {
  const name = `nh-test-town-${RUN}-${id}`;
  containers.set(id, name);
  const file = join(work, `${id}.sh`);
  writeFileSync(file, userData, { mode: 0o700 });
  docker('create', '--name', name, '--network', 'host', MACHINE_IMAGE);
  docker('cp', file, `${name}:${USER_DATA_PATH}`);
  docker('start', name);
}

beforeAll(async () => {
  importMachineImage();
  const tarball = galaNodeTarball();
  downloads = createServer((req, res) => res.writeHead(200, { 'content-type': 'application/gzip' }).end(tarball));
  await new Promise<void>((r) => downloads.listen(0, '127.0.0.1', r));
  cloud = await startHetznerStandIn({
    actionPolls: 1,
    onBoot: (m) => boot(m.id, m.userData),
    onDelete: (id) => {
      const name = containers.get(id);
      if (name) spawnSync('docker', ['rm', '--force', name], { stdio: 'ignore' });
    },
    // Power as a machine feels it: everything on it stops, and goes on where it was.
    onPower: (id, on) => {
      const name = containers.get(id);
      if (name) docker(on ? 'unpause' : 'pause', name);
    },
  });
  smtp = await startSmtp();
  s = await startLifecycleServer({
    PROVISIONER: 'docker',
    MACHINE_PROVIDER: 'hetzner',
    HCLOUD_TOKEN: cloud.token,
    HCLOUD_ENDPOINT: cloud.url,
    MACHINE_FIREWALLS: 'nodeharbor-nodes',
    GALA_NODE_DOWNLOAD_URL: `http://127.0.0.1:${(downloads.address() as AddressInfo).port}/DownloadLinuxNode`,
    GALA_NODE_SHA256: createHash('sha256').update(tarball).digest('hex'),
    GALA_EULA_ACCEPTED: 'true',
    MACHINE_HEARTBEAT_SECONDS: '1',
    INSTALL_SETTLE_SECONDS: '1',
    INSTALL_TIMEOUT_SECONDS: '120',
    RECONCILE_INTERVAL_SECONDS: '86400',
    NODE_MONITOR_INTERVAL_SECONDS: '120',
    WORKER_POLL_MS: '100',
    SMTP_URL: smtp.url,
  });
  owner = await createTestUser(s, { credits: 100 });
}, 240_000);
afterAll(async () => {
  await s?.stop();
  for (const name of containers.values()) spawnSync('docker', ['rm', '--force', name], { stdio: 'ignore' });
  await cloud?.close();
  await smtp?.stop();
  await new Promise((r) => downloads?.close(r));
  rmSync(work, { recursive: true, force: true });
});

const serverOf = (id: string) => [...cloud.servers.values()].find((m) => m.labels['nodeharbor.service_id'] === id);
const container = (id: string) => containers.get(String(serverOf(id)!.id))!;

it('installs, runs, hands over a changed key, powers off and on, goes offline with a mail, and leaves nothing when deleted', async () => {
  const key = galaKey();
  const { data, error } = await owner.client.rpc('create_service_securely', { p_name: 'town-1', p_description: null, p_api_key: key, p_product_id: TOWN_STAR });
  if (error) throw error;
  const id = (data as { id: string }).id;
  await waitFor('the service to be active', async () => (await serviceState(s.deps.db, id)) === 'active', 180_000);

  // Gala's CLI got the key from the agent; the provider and the jobs never saw it.
  expect(read(container(id), `${GALA_STANDIN_DIR}/api-key`).trim()).toBe(key);
  expect(JSON.stringify(cloud.requests)).not.toContain(key);
  const traces = await s.deps.db.query<{ t: string }>(
    `select coalesce(string_agg(payload::text || coalesce(last_error, ''), ' '), '') as t from nodeharbor.jobs`,
  );
  expect(traces.rows[0]!.t).not.toContain(key);
  const { data: logs } = await owner.client.functions.invoke('node-logs', { body: { service_id: id } });
  expect((logs as { lines: string[] }).lines.join('\n')).toMatch(/townstar/);
  expect(JSON.stringify(logs)).not.toContain(key);

  const newKey = galaKey();
  const changed = await owner.client.rpc('manage_service_operation', { p_service_id: id, p_operation: 'update', p_updates: { api_key: newKey } });
  expect(changed.error).toBeNull();
  await waitFor('the node to run with the new key', async () => read(container(id), `${GALA_STANDIN_DIR}/api-key`).trim() === newKey, 60_000);

  // Suspended: the reconciler powers the server off; active again: on, and reporting again.
  const deps = await createJobDeps(s.deps);
  await forceServiceState(s.deps.db, 'suspended', 'id = $1', id, `terminates_at = now() + interval '14 days'`);
  await reconcileNodes(deps);
  expect(serverOf(id)!.status).toBe('off');
  await forceServiceState(s.deps.db, 'active', 'id = $1', id, 'terminates_at = null');
  await reconcileNodes(deps);
  expect(serverOf(id)!.status).toBe('running');
  const since = new Date();
  await waitFor('a report after power on', async () => {
    const { rows } = await s.deps.db.query<{ at: Date }>('select last_heartbeat_at as at from private.machines where service_id = $1', [id]);
    return rows[0]!.at > since;
  });

  // The agent stops reporting (its machine hangs): the monitor finds the node offline.
  await sweepNodes(deps);
  docker('pause', container(id));
  await waitFor(
    'the node to be offline',
    async () => {
      await sweepNodes(deps);
      const { rows } = await s.deps.db.query<{ state: string }>('select state from private.node_status where service_id = $1', [id]);
      return rows[0]?.state === 'offline';
    },
    30_000,
  );
  // Down past Town Star's 5 minutes (its clock moved on): the owner is told what is at stake.
  await s.deps.db.query(`update private.node_status set down_since = now() - interval '6 minutes' where service_id = $1`, [id]);
  await sweepNodes(deps);
  await waitFor('the node-down mail', async () => smtp.mails.some((m) => m.raw.includes('Gala may pair your licence')), 30_000);
  docker('unpause', container(id));

  const machine = container(id);
  const deleted = await owner.client.rpc('manage_service_operation', { p_service_id: id, p_operation: 'delete' });
  expect(deleted.error).toBeNull();
  await waitFor('the server to be deleted', async () => serverOf(id) === undefined, 60_000);
  expect(spawnSync('docker', ['inspect', machine], { stdio: 'ignore' }).status).not.toBe(0);
}, 400_000);
