import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { createJobDeps } from '../../src/server/jobs/app-worker';
import type { JobDeps } from '../../src/server/jobs/task';
import { installNode } from '../../src/server/provisioning/install-node';
import { reconcileNodes } from '../../src/server/provisioning/reconciler';
import { startTestServer, type TestServer } from '../helpers/server';
import { forceServiceState } from '../helpers/service-state';
import { createTestUser, GALA_KEY, TOWN_STAR, type TestUser } from '../helpers/users';
import { expectLedgerBalanced } from '../helpers/ledger';

// The reconciler against the simulated engine (its nodes are rows of nodeharbor.simulated_nodes);
// test/docker/ runs the same repairs against a real Swarm.

let s: TestServer;
let deps: JobDeps;
let owner: TestUser;
beforeAll(async () => {
  s = await startTestServer({ RATE_LIMITS_ENABLED: 'false', PROVISION_INSTALL_SECONDS: '0', PROVISION_DELETE_SECONDS: '0', INSTALL_SETTLE_SECONDS: '0' });
  deps = await createJobDeps(s.deps);
  owner = await createTestUser(s, { credits: 100 });
});
// Money moves here: every balance stays its ledger's sum.
afterEach(() => expectLedgerBalanced(s.deps.db));
afterAll(() => s.stop());

const sql = <T>(text: string, params: unknown[] = []) => s.deps.db.query<T>(text, params).then((r) => r.rows);
const node = async (id: string) =>
  (await sql<{ state: string }>('select state from nodeharbor.simulated_nodes where service_id = $1', [id]))[0]?.state ?? 'absent';
const events = async (id: string) =>
  (await sql<{ event: string }>('select event from public.service_events where service_id = $1 order by id', [id])).map((e) => e.event);

async function active(name: string): Promise<string> {
  const { data, error } = await owner.client.rpc('create_service_securely', {
    p_name: name,
    p_description: null,
    p_api_key: GALA_KEY,
    p_product_id: TOWN_STAR,
  });
  if (error) throw error;
  const id = (data as { id: string }).id;
  await installNode(deps, id);
  expect((await sql<{ state: string }>('select state from private.services where id = $1', [id]))[0]!.state).toBe('active');
  return id;
}

it('recreates a missing node, corrects replicas both ways, removes orphans, and leaves the rest alone', async () => {
  const missing = await active('rc-missing');
  const stopped = await active('rc-stopped');
  const expired = await active('rc-expired');
  const deleted = await active('rc-deleted');
  const fine = await active('rc-fine');
  const { data } = await owner.client.rpc('create_service_securely', {
    p_name: 'rc-installing',
    p_description: null,
    p_api_key: GALA_KEY,
    p_product_id: TOWN_STAR,
  });
  const installing = (data as { id: string }).id;
  const stranger = randomUUID();

  await sql('delete from nodeharbor.simulated_nodes where service_id = $1', [missing]);
  await deps.provisioner.stop(stopped);
  await forceServiceState(s.deps.db, 'expired', 'id = $1', expired);
  await forceServiceState(s.deps.db, 'deleted', 'id = $1', deleted);
  await sql(`insert into nodeharbor.simulated_nodes (service_id, state, installs) values ($1, 'running', 1)`, [stranger]);

  const corrections = await reconcileNodes(deps);
  expect(corrections).toEqual(
    expect.arrayContaining([
      { serviceId: missing, event: 'node_recreated' },
      { serviceId: stopped, event: 'replicas_corrected', replicas: 1 },
      { serviceId: expired, event: 'replicas_corrected', replicas: 0 },
      { serviceId: deleted, event: 'orphan_removed' },
      { serviceId: stranger, event: 'orphan_removed' },
    ]),
  );
  expect(corrections).toHaveLength(5);
  expect([await node(missing), await node(stopped), await node(expired), await node(deleted), await node(stranger)]).toEqual([
    'running',
    'running',
    'stopped',
    'absent',
    'absent',
  ]);
  // A service installing belongs to its job: its node is not created behind it.
  expect(await node(installing)).toBe('absent');
  expect(await node(fine)).toBe('running');
  expect((await events(missing)).at(-1)).toBe('node_recreated');
  expect((await events(stopped)).at(-1)).toBe('replicas_corrected');
  expect((await events(deleted)).at(-1)).toBe('orphan_removed');
  expect(await events(fine)).toEqual(['install_requested', 'installed']);

  // Nothing left to repair: a second sweep changes nothing.
  expect(await reconcileNodes(deps)).toEqual([]);
});

it('makes a bounded number of corrections per sweep, and the next sweep the rest', async () => {
  const ids = [await active('rc-b1'), await active('rc-b2'), await active('rc-b3')];
  await sql('delete from nodeharbor.simulated_nodes where service_id = any($1::uuid[])', [ids]);
  expect(await reconcileNodes(deps, 2)).toHaveLength(2);
  expect(await reconcileNodes(deps, 2)).toHaveLength(1);
  expect(await Promise.all(ids.map(node))).toEqual(['running', 'running', 'running']);
});
