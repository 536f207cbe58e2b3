import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startLifecycleServer, waitFor } from '../lifecycle/helpers';
import { createTestUser, MASTER_NODE, type TestUser } from '../helpers/users';
import { docker, removeImage, swarmName } from './cli';
import { removeEachTestsNodes, serviceState } from './lifecycle-nodes';
import { ensurePlaya3ullStandIn, PLAYA3ULL_KEY } from './playa3ull-standin';
import { startPrivateRegistry, type PrivateRegistry } from './private-registry';

// The README's path from `npm run images` to a running Master Node, through a private registry
// that asks for credentials: the push, the failed install before the operator logs in, and the
// node that runs once NodeHarbor's DOCKER_CONFIG holds the login.

const ROOT = join(import.meta.dirname, '../..');
let registry: PrivateRegistry;
/** The build machine's docker login, and NodeHarbor's own DOCKER_CONFIG. */
let buildConfig: string;
let nodeharborConfig: string;
let image: string | undefined;
let s: Awaited<ReturnType<typeof startLifecycleServer>> | undefined;
let owner: TestUser;
const created: string[] = [];

const login = (configDir: string) =>
  execFileSync('docker', ['--config', configDir, 'login', registry.host, '--username', registry.user, '--password-stdin'], {
    input: registry.password,
    stdio: ['pipe', 'ignore', 'pipe'],
  });
const images = (configDir: string) =>
  spawnSync('node', ['scripts/images.mjs', '--registry', registry.host, '--only', 'playa3ull-masternode', '--push'], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, DOCKER_CONFIG: configDir },
  });

beforeAll(async () => {
  ensurePlaya3ullStandIn();
  registry = await startPrivateRegistry();
  buildConfig = mkdtempSync(join(tmpdir(), 'nh-build-docker-'));
  nodeharborConfig = mkdtempSync(join(tmpdir(), 'nh-docker-config-'));
}, 120_000);
// Registered first, so run last (after hooks run in reverse): once the nodes are gone.
afterAll(async () => {
  if (image) await removeImage(image);
  await registry?.stop();
  for (const dir of [buildConfig, nodeharborConfig]) if (dir) rmSync(dir, { recursive: true, force: true });
});
removeEachTestsNodes(() => s, created);

async function create(name: string): Promise<string> {
  const { data, error } = await owner.client.rpc('create_service_securely', {
    p_name: name,
    p_description: null,
    p_api_key: PLAYA3ULL_KEY,
    p_product_id: MASTER_NODE,
  });
  if (error) throw error;
  const id = (data as { id: string }).id;
  created.push(id);
  return id;
}
const until = (what: string, id: string, wanted: string) => waitFor(what, async () => (await serviceState(s!.deps.db, id)) === wanted, 90_000);

it('pushes only once the build machine is logged in, and says how when it is not', () => {
  const refused = images(buildConfig);
  expect(refused.status).not.toBe(0);
  expect(refused.stderr).toContain(`could not be pushed (log in with docker login ${registry.host})`);

  login(buildConfig);
  const pushed = images(buildConfig);
  expect(pushed.status, pushed.stderr).toBe(0);
  image = (JSON.parse(/NODE_IMAGES='(.+)'/.exec(pushed.stdout)![1]!) as { MASTERNODE: string }).MASTERNODE;
  expect(image).toMatch(new RegExp(`^${registry.host}/playa3ull-masternode:v[0-9.]+-[0-9a-f]{8}$`));
  // The engine must pull it from the registry: the build's own copy goes.
  docker('image', 'rm', image);
}, 240_000);

it("fails a node whose image the registry refuses, in the operator's words, and runs it once NodeHarbor holds the login", async () => {
  expect(image).toBeDefined();
  s = await startLifecycleServer({
    PROVISIONER: 'docker',
    NODE_IMAGES: JSON.stringify({ MASTERNODE: image }),
    DOCKER_CONFIG: nodeharborConfig,
    INSTALL_SETTLE_SECONDS: '1',
    INSTALL_TIMEOUT_SECONDS: '90',
    RECONCILE_INTERVAL_SECONDS: '86400',
    WORKER_POLL_MS: '100',
  });
  owner = await createTestUser(s, { credits: 100 });

  const refused = await create('no-login');
  await until('the installation to fail', refused, 'failed');
  // The reason is the operator's to act on: the admins read it (migration 0051).
  const { rows } = await s.deps.db.query<{ provisioning_error: string }>('select provisioning_error from private.services where id = $1', [refused]);
  expect(rows[0]!.provisioning_error).toMatch(
    new RegExp(`^The node image ${image!.replace(/[.]/g, '\\.')} could not be pulled: the operator must push it or set registry credentials \\(.+\\)$`),
  );

  // Read at each new node: no restart needed.
  login(nodeharborConfig);
  const id = await create('logged-in');
  await until('the service to be active', id, 'active');
  await waitFor(
    'the node to be accepted',
    async () => spawnSync('docker', ['service', 'logs', '--raw', swarmName(id)], { encoding: 'utf8' }).stdout.includes('License accepted'),
    30_000,
  );
  // The credentials went with the request, not into what an inspect shows.
  const stored = JSON.parse(readFileSync(join(nodeharborConfig, 'config.json'), 'utf8')) as { auths: Record<string, { auth: string }> };
  expect(stored.auths[registry.host]).toBeDefined();
  const inspected = docker('service', 'inspect', swarmName(id));
  expect(inspected).not.toContain(registry.password);
  expect(inspected).not.toContain(stored.auths[registry.host]!.auth);
}, 240_000);
