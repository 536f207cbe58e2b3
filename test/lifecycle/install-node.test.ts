import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { createJobDeps } from '../../src/server/jobs/app-worker';
import type { JobDeps } from '../../src/server/jobs/task';
import { installNode } from '../../src/server/provisioning/install-node';
import { startTestServer, type TestServer } from '../helpers/server';
import { createService, createTestUser, TOWN_STAR } from '../helpers/users';
import { jobsOf } from './helpers';
import { expectLedgerBalanced } from '../helpers/ledger';

// A node that no engine could run fails its installation at once, with a reason its owner can act on.

let s: TestServer;
let deps: JobDeps;
beforeAll(async () => {
  s = await startTestServer({ RATE_LIMITS_ENABLED: 'false', PROVISION_INSTALL_SECONDS: '0', INSTALL_SETTLE_SECONDS: '0' });
  deps = await createJobDeps(s.deps);
});
// Money moves here: every balance stays its ledger's sum.
afterEach(() => expectLedgerBalanced(s.deps.db));
afterAll(() => s.stop());

it('fails a service without a plan, and one whose plan has no image, naming why', async () => {
  const u = await createTestUser(s, { credits: 20 });
  const planless = await createService(u, 'no-plan');
  await s.deps.db.query('update private.services set product_id = null where id = $1', [planless]);
  await installNode(deps, planless);
  const imageless = await createService(u, 'no-image');
  await s.deps.db.query(`update public.products set node_image = null where id = $1`, [TOWN_STAR]);
  try {
    await installNode(deps, imageless);
  } finally {
    await s.deps.db.query(`update public.products set node_image = 'nodeharbor/townstar-node:1' where id = $1`, [TOWN_STAR]);
  }
  const { data } = await u.client.from('services').select('name, state, provisioning_error').order('name');
  expect(data).toEqual([
    { name: 'no-image', state: 'failed', provisioning_error: 'No node image is configured for TOWNSTAR.' },
    { name: 'no-plan', state: 'failed', provisioning_error: 'This service has no plan, so there is no node to run.' },
  ]);
  const nodes = await s.deps.db.query('select 1 from nodeharbor.simulated_nodes where service_id = any($1::uuid[])', [[planless, imageless]]);
  expect(nodes.rows).toEqual([]);
});

it('hands over a key changed while the node was being installed, after the install had read the old one', async () => {
  const u = await createTestUser(s, { credits: 20 });
  const newKey = `${'E'.repeat(43)}=`;
  const changed = await createService(u, 'key-changed');
  const unchanged = await createService(u, 'key-kept');
  // The customer's change lands between the install's read of the key and the node's creation.
  const changingKey: JobDeps['provisioner'] = {
    ...deps.provisioner,
    async install(spec) {
      if (spec.serviceId === changed) {
        const { error } = await u.client.rpc('manage_service_operation', { p_service_id: changed, p_operation: 'update', p_updates: { api_key: newKey } });
        expect(error).toBeNull();
      }
      return deps.provisioner.install(spec);
    },
  };
  await installNode({ ...deps, provisioner: changingKey }, changed);
  await installNode({ ...deps, provisioner: changingKey }, unchanged);
  const { data } = await u.client.from('services').select('name, state').order('name');
  expect(data).toEqual([
    { name: 'key-changed', state: 'active' },
    { name: 'key-kept', state: 'active' },
  ]);
  const keyJobs = await jobsOf(s.deps.db, 'update-node-key');
  expect(keyJobs.filter((j) => j.payload.serviceId === changed)).toHaveLength(1);
  expect(keyJobs.filter((j) => j.payload.serviceId === unchanged)).toEqual([]);
});
