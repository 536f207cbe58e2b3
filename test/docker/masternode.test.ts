import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startLifecycleServer, waitFor } from '../lifecycle/helpers';
import { createTestUser, MASTER_NODE, type TestUser } from '../helpers/users';
import { docker, dockerJson, nodeContainer, removeImage, swarmName } from './cli';
import { removeEachTestsNodes, serviceState } from './lifecycle-nodes';
import { ensurePlaya3ullStandIn, PLAYA3ULL_IMAGE, PLAYA3ULL_KEY, UNKNOWN_KEY } from './playa3ull-standin';

// Playa3ull's Master Node as NodeHarbor builds it (nodes/playa3ull-masternode, npm run images) on
// an offline stand-in tagged as the pinned vendor image, run by the app's own worker on a real Swarm.

const ROOT = join(import.meta.dirname, '../..');
const REGISTRY = 'nodeharbor-test';
let image: string;
let s: Awaited<ReturnType<typeof startLifecycleServer>>;
let owner: TestUser;
const created: string[] = [];

beforeAll(async () => {
  ensurePlaya3ullStandIn();
  const out = execFileSync('node', ['scripts/images.mjs', '--registry', REGISTRY, '--only', 'playa3ull-masternode'], { cwd: ROOT, encoding: 'utf8' });
  image = (JSON.parse(/NODE_IMAGES='(.+)'/.exec(out)![1]!) as { MASTERNODE: string }).MASTERNODE;
  s = await startLifecycleServer({
    PROVISIONER: 'docker',
    NODE_IMAGES: JSON.stringify({ MASTERNODE: image }),
    INSTALL_SETTLE_SECONDS: '1',
    INSTALL_TIMEOUT_SECONDS: '90',
    RECONCILE_INTERVAL_SECONDS: '86400',
    WORKER_POLL_MS: '100',
  });
  owner = await createTestUser(s, { credits: 100 });
}, 240_000);
// Registered first, so run last (after hooks run in reverse): once the nodes are gone.
afterAll(async () => {
  if (image) await removeImage(image);
});
removeEachTestsNodes(() => s, created);

const until = (what: string, id: string, wanted: string) => waitFor(what, async () => (await serviceState(s.deps.db, id)) === wanted, 90_000);

async function create(name: string, key: string): Promise<string> {
  const { data, error } = await owner.client.rpc('create_service_securely', { p_name: name, p_description: null, p_api_key: key, p_product_id: MASTER_NODE });
  if (error) throw error;
  const id = (data as { id: string }).id;
  created.push(id);
  return id;
}

/** The environment of the container's PID 1, which our entrypoint replaced with the vendor's node (exec). */
const environ = (c: string) => docker('exec', c, 'cat', '/proc/1/environ').split('\0').filter(Boolean);
const cmdline = (c: string) => docker('exec', c, 'cat', '/proc/1/cmdline').split('\0').filter(Boolean);
const logs = (id: string) => spawnSync('docker', ['service', 'logs', '--raw', swarmName(id)], { encoding: 'utf8' }).stdout;

it("is built on Playa3ull's pinned image, and says which one it used and what it runs of it", () => {
  const [built] = dockerJson<{ Config: { Labels: Record<string, string>; Entrypoint: string[] } }[]>('image', 'inspect', image);
  const baseId = docker('image', 'inspect', '--format', '{{.Id}}', PLAYA3ULL_IMAGE);
  expect(image).toMatch(new RegExp(`^${REGISTRY}/playa3ull-masternode:v[0-9.]+-[0-9a-f]{8}$`));
  expect(built!.Config.Labels).toMatchObject({
    'org.opencontainers.image.base.name': PLAYA3ULL_IMAGE,
    'io.nodeharbor.base-image': baseId,
    'io.nodeharbor.product': 'MASTERNODE',
    'io.nodeharbor.vendor-entrypoint': '["/usr/local/bin/playa3ull-node"]',
    'io.nodeharbor.vendor-cmd': '["--headless"]',
  });
  // Built offline from an imported image: no registry's digest to record.
  expect(built!.Config.Labels['org.opencontainers.image.base.digest']).toBeUndefined();
  expect(built!.Config.Entrypoint).toEqual(['/nodeharbor/nodeharbor-entrypoint']);
});

it('stops at once, with one line, when the secret is missing or empty', () => {
  const secrets = mkdtempSync(join(tmpdir(), 'nh-masternode-secret-'));
  try {
    const run = (mount: boolean) =>
      spawnSync('docker', ['run', '--rm', '--network', 'none', ...(mount ? ['-v', `${secrets}:/run/secrets:ro`] : []), image], { encoding: 'utf8' });
    const missing = run(false);
    expect([missing.status, missing.stdout, missing.stderr]).toEqual([
      78,
      '',
      "NodeHarbor: no licence key: the node's secret /run/secrets/node_key is missing\n",
    ]);
    writeFileSync(join(secrets, 'node_key'), ' \n');
    const empty = run(true);
    expect([empty.status, empty.stdout, empty.stderr]).toEqual([78, '', "NodeHarbor: no licence key: the node's secret /run/secrets/node_key is empty\n"]);
  } finally {
    rmSync(secrets, { recursive: true, force: true });
  }
});

it("runs the vendor's node with the key in its environment alone, and a changed key reaches it", async () => {
  const id = await create('master', PLAYA3ULL_KEY);
  await until('the service to be active', id, 'active');
  await waitFor('the node to be accepted', async () => logs(id).includes(`License accepted: ****${PLAYA3ULL_KEY.slice(-4)}`), 30_000);
  const c = nodeContainer(id);
  expect(environ(c)).toContain(`LICENSE_KEY=${PLAYA3ULL_KEY}`);
  // The vendor's entrypoint and command, run in the entrypoint's place: the key is no argument.
  expect(cmdline(c)).toEqual(['/bin/sh', '/usr/local/bin/playa3ull-node', '--headless']);
  for (const inspected of [docker('service', 'inspect', swarmName(id)), docker('inspect', c)]) expect(inspected).not.toContain(PLAYA3ULL_KEY);
  expect(logs(id)).not.toContain(PLAYA3ULL_KEY);

  const newKey = `${PLAYA3ULL_KEY.slice(0, -4)}7c21`;
  const { error } = await owner.client.rpc('manage_service_operation', { p_service_id: id, p_operation: 'update', p_updates: { api_key: newKey } });
  expect(error).toBeNull();
  await waitFor('the node to run with the new key', async () => logs(id).includes('License accepted: ****7c21'), 60_000);
  await waitFor('one container, with the new key', async () => {
    try {
      return environ(nodeContainer(id)).includes(`LICENSE_KEY=${newKey}`);
    } catch {
      return false;
    }
  });
  expect(docker('service', 'inspect', swarmName(id))).not.toContain(newKey);
});

it("fails an installation whose key Playa3ull's node refuses, with the node's own reason, and leaves nothing in Swarm", async () => {
  const id = await create('refused', UNKNOWN_KEY);
  await until('the installation to fail', id, 'failed');
  // The node's own reason is the admins'; its owner reads the cause (migration 0051).
  const { data } = await owner.client.from('services').select('failure_cause').eq('id', id).single();
  expect(data).toEqual({ failure_cause: 'not_started' });
  const { rows } = await s.deps.db.query('select provisioning_error from private.services where id = $1', [id]);
  expect(rows).toEqual([{ provisioning_error: 'The node stopped: Error: license rejected: license not found' }]);
  expect(docker('service', 'ls', '-q', '--filter', `label=nodeharbor.service_id=${id}`)).toBe('');
});
