import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { createJobDeps } from '../../src/server/jobs/app-worker';
import type { JobDeps } from '../../src/server/jobs/task';
import { installNode } from '../../src/server/provisioning/install-node';
import { installFailureText } from '../../src/shared/install-failure';
import { REDACTED } from '../../src/shared/node-health';
import { startTestServer, type TestServer } from '../helpers/server';
import { createService, createTestUser, GALA_KEY, TOWN_STAR } from '../helpers/users';
import { jobsOf } from './helpers';
import { expectLedgerBalanced } from '../helpers/ledger';

// A node that no engine could run fails its installation at once: its owner reads the cause in
// their words, the admins the engine's reason.

let s: TestServer;
let deps: JobDeps;
beforeAll(async () => {
  s = await startTestServer({ RATE_LIMITS_ENABLED: 'false', PROVISION_INSTALL_SECONDS: '0', PROVISION_DELETE_SECONDS: '0', INSTALL_SETTLE_SECONDS: '0' });
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
  // A container product without an image (Town Star's own nodes run on machines, which need none).
  await s.deps.db.query(`update public.products set node_driver = 'swarm' where id = $1`, [TOWN_STAR]);
  try {
    await installNode(deps, imageless);
  } finally {
    await s.deps.db.query(`update public.products set node_driver = 'machine' where id = $1`, [TOWN_STAR]);
  }
  // The owner reads the cause, in their words by installFailureText; the reason is the admins' (migration 0051).
  const { data } = await u.client.from('services').select('*').order('name');
  expect(data!.map(({ name, state, failure_cause }) => ({ name, state, failure_cause }))).toEqual([
    { name: 'no-image', state: 'failed', failure_cause: 'not_started' },
    { name: 'no-plan', state: 'failed', failure_cause: 'not_started' },
  ]);
  expect(data!.some((row) => 'provisioning_error' in row)).toBe(false);
  const { rows: reasons } = await s.deps.db.query('select name, provisioning_error from private.services where id = any($1::uuid[]) order by name', [
    [planless, imageless],
  ]);
  expect(reasons).toEqual([
    { name: 'no-image', provisioning_error: 'No node image is configured for TOWNSTAR.' },
    { name: 'no-plan', provisioning_error: 'This service has no plan, so there is no node to run.' },
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

/** The engine as it answers a node just created: still starting at the first look, then as the driver says. */
function startingFirst(): JobDeps['provisioner'] {
  const looked = new Set<string>();
  return {
    ...deps.provisioner,
    async health(serviceId) {
      if (looked.has(serviceId)) return deps.provisioner.health(serviceId);
      looked.add(serviceId);
      return { state: 'starting' };
    },
  };
}

const stateOf = async (id: string) =>
  (
    await s.deps.db.query<{ state: string; reason: string | null }>('select state::text, provisioning_error as reason from private.services where id = $1', [
      id,
    ])
  ).rows[0];

it('counts the install timeout from the install’s start: a service queued longer than the timeout still installs', async () => {
  const u = await createTestUser(s, { credits: 10 });
  const id = await createService(u, 'long-queued');
  // Ordered an hour ago, and waiting in the queue since: far past INSTALL_TIMEOUT_SECONDS (600).
  await s.deps.db.query(`update private.services set state_changed_at = now() - interval '1 hour' where id = $1`, [id]);
  await installNode({ ...deps, provisioner: startingFirst() }, id);
  expect(await stateOf(id)).toEqual({ state: 'active', reason: null });
});

it('keeps an install’s start when another worker takes its job over: the clock does not start again', async () => {
  const u = await createTestUser(s, { credits: 10 });
  const id = await createService(u, 'taken-over');
  // Its install began 11 minutes ago, and the worker running it was killed.
  await s.deps.db.query(`update private.services set install_started_at = now() - interval '11 minutes' where id = $1`, [id]);
  const neverRuns: JobDeps['provisioner'] = { ...deps.provisioner, health: async () => ({ state: 'starting' }) };
  await installNode({ ...deps, provisioner: neverRuns }, id);
  expect(await stateOf(id)).toEqual({ state: 'failed', reason: 'The node did not start within 600 seconds' });
});

it('tells the owner, and only the owner, that an install waits for a free slot, from the order to its start, and again on a retry', async () => {
  const u = await createTestUser(s, { credits: 20 });
  const stranger = await createTestUser(s);
  const id = await createService(u, 'waits');
  const queued = async () => (await u.client.from('services').select('install_queued').eq('id', id).single()).data;
  expect(await queued()).toEqual({ install_queued: true });
  expect((await stranger.client.from('services').select('install_queued').eq('id', id)).data).toEqual([]);
  await installNode({ ...deps, provisioner: startingFirst() }, id);
  expect(await queued()).toEqual({ install_queued: false });

  // A failed install retried waits in the queue again, with a clock of its own.
  const failing = await createService(u, 'retried');
  await installNode({ ...deps, provisioner: { ...deps.provisioner, health: async () => ({ state: 'failing', reason: 'image not found' }) } }, failing);
  const { data: retried } = await u.client.rpc('retry_service_installation', { p_service_id: failing, p_charge: 10 });
  expect(retried).toMatchObject({ state: 'installing', install_queued: true });
  const { rows } = await s.deps.db.query('select install_started_at from private.services where id = $1', [failing]);
  expect(rows).toEqual([{ install_started_at: null }]);
});

it('fails a node that keeps stopping with its own last words, its key redacted, or the engine’s reason when it printed none', async () => {
  const u = await createTestUser(s, { credits: 30 });
  const failing = (lines: string[]): JobDeps['provisioner'] => ({
    ...deps.provisioner,
    health: async () => ({ state: 'failing', reason: 'task: non-zero exit (1)' }),
    logs: async () => lines,
  });
  const spoke = await createService(u, 'spoke');
  await installNode(
    {
      ...deps,
      provisioner: failing([
        `2026-11-28T06:00:00.000000000Z Connecting with ${GALA_KEY}`,
        '2026-11-28T06:00:01.000000000Z Error: license rejected: license not found',
        '2026-11-28T06:00:01.000000001Z ',
      ]),
    },
    spoke,
  );
  expect(await stateOf(spoke)).toEqual({ state: 'failed', reason: 'The node stopped: Error: license rejected: license not found' });
  const leaked = await createService(u, 'leaked');
  await installNode({ ...deps, provisioner: failing([`2026-11-28T06:00:00.000000000Z Refused key ${GALA_KEY}`]) }, leaked);
  expect(await stateOf(leaked)).toEqual({ state: 'failed', reason: `The node stopped: Refused key ${REDACTED}` });
  const silent = await createService(u, 'silent');
  await installNode({ ...deps, provisioner: failing([]) }, silent);
  expect(await stateOf(silent)).toEqual({ state: 'failed', reason: 'task: non-zero exit (1)' });
});

it("tells the owner the cause in their words, everywhere they read it, and the admins the engine's reason", async () => {
  const u = await createTestUser(s, { credits: 20 });
  const admin = await createTestUser(s, { admin: true });
  const refused = await createService(u, 'refused');
  const reason = 'Gala refused this API key: Error: invalid api key';
  await installNode(
    { ...deps, provisioner: { ...deps.provisioner, health: async () => ({ state: 'failing', reason, inTheNodesWords: true, cause: 'key_refused' }) } },
    refused,
  );
  const words = installFailureText('key_refused');
  // The services view, the answer of an operation, the events and the mail: the cause, never the reason.
  const { data: row } = await u.client.from('services').select('*').eq('id', refused).single();
  expect(row).toMatchObject({ state: 'failed', failure_cause: 'key_refused' });
  const { data: answer } = await u.client.rpc('manage_service_operation', { p_service_id: refused, p_operation: 'update', p_updates: { name: 'refused-2' } });
  expect(answer).toMatchObject({ state: 'failed', failure_cause: 'key_refused' });
  const { data: events } = await u.client.from('service_events').select('event, detail').eq('service_id', refused).eq('event', 'install_failed');
  expect(events).toEqual([{ event: 'install_failed', detail: { cause: 'key_refused', refunded: 10 } }]);
  const { rows: mails } = await s.deps.db.query<{ text_body: string }>('select text_body from nodeharbor.outbox where to_address = $1', [u.email]);
  expect(mails).toHaveLength(1);
  expect(mails[0]!.text_body).toContain(words);
  expect(JSON.stringify([row, answer, events, mails])).not.toContain('invalid api key');
  // The admins: the fleet's row and the user's events keep the engine's reason.
  const { data: adminEvents } = await admin.client.rpc('admin_user_events', { p_user_id: u.id });
  expect((adminEvents as { event: string; detail: unknown }[]).find((e) => e.event === 'install_failed')!.detail).toEqual({
    cause: 'key_refused',
    refunded: 10,
    reason,
  });
  const { data: fleet } = await admin.client.rpc('admin_fleet', { p_state: 'failed', p_limit: 200 });
  expect((fleet as { service_id: string; provisioning_error: string }[]).find((f) => f.service_id === refused)?.provisioning_error).toBe(reason);
});
