import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { createJobDeps } from '../../src/server/jobs/app-worker';
import { createSimulatedDriver } from '../../src/server/provisioning/drivers/simulated';
import { sweepNodes } from '../../src/server/provisioning/node-monitor';
import { messages } from '../../src/shared/validation';
import { signInAal1, verifyNewFactor } from '../helpers/mfa';
import { forceServiceState } from '../helpers/service-state';
import { createTestUser, GALA_KEY, LICENCE_KEY, MASTER_NODE, TOWN_STAR, type TestUser } from '../helpers/users';
import { jobsOf, queueIsIdle, startLifecycleServer, waitFor } from './helpers';
import { expectLedgerBalanced } from '../helpers/ledger';

// Changing a service's key and renaming it (issue 17), through supabase-js against the real
// server and its worker on the simulated driver: the rules, who may, and what reaches the node.

let s: Awaited<ReturnType<typeof startLifecycleServer>>;
beforeAll(async () => {
  s = await startLifecycleServer();
});
// Money moves here: every balance stays its ledger's sum.
afterEach(() => expectLedgerBalanced(s.deps.db));
afterAll(() => s.stop());

const NEW_KEY = `${'B'.repeat(43)}=`;
const update = (u: TestUser, id: string, updates: Record<string, unknown>) =>
  u.client.rpc('manage_service_operation', { p_service_id: id, p_operation: 'update', p_updates: updates });

async function createActive(u: TestUser, name: string, product = TOWN_STAR, key = GALA_KEY): Promise<string> {
  const { data, error } = await u.client.rpc('create_service_securely', { p_name: name, p_description: null, p_api_key: key, p_product_id: product });
  if (error) throw error;
  const id = (data as { id: string }).id;
  await waitFor(
    'the installation',
    async () => (await s.deps.db.query<{ state: string }>('select state::text from private.services where id = $1', [id])).rows[0]!.state === 'active',
  );
  return id;
}
const eventsOf = async (id: string) =>
  (await s.deps.db.query<{ event: string; detail: unknown }>('select event, detail from public.service_events where service_id = $1 order by id', [id])).rows;
const keyOf = async (u: TestUser, id: string) =>
  ((await u.client.from('services').select('api_key').eq('id', id).single()).data as { api_key: string }).api_key;
const runOf = async (id: string) =>
  (await s.deps.db.query<{ task: number }>('select task from nodeharbor.simulated_nodes where service_id = $1', [id])).rows[0]?.task;
const keyJobs = async (id: string) => (await jobsOf(s.deps.db, 'update-node-key')).filter((j) => j.payload.serviceId === id);

it('changes the key, records it without the key, and the worker runs the node again with it', async () => {
  const u = await createTestUser(s, { credits: 20 });
  const id = await createActive(u, 'rotate-1');
  const run = await runOf(id);
  const { data, error } = await update(u, id, { api_key: NEW_KEY });
  expect(error).toBeNull();
  expect(data).toMatchObject({ id, name: 'rotate-1', api_key: NEW_KEY });
  expect(await keyOf(u, id)).toBe(NEW_KEY);
  await waitFor('the key to reach the node', () => queueIsIdle(s.deps.db));
  const jobs = await keyJobs(id);
  expect(jobs).toEqual([expect.objectContaining({ status: 'done', payload: { serviceId: id } })]);
  expect(await runOf(id)).toBe(run! + 1);
  const events = await eventsOf(id);
  expect(events.map((e) => e.event)).toEqual(expect.arrayContaining(['key_changed', 'key_applied']));
  expect(events.find((e) => e.event === 'key_changed')!.detail).toBeNull();
  // The key is in no event and no job, old or new.
  const traces = JSON.stringify([events, (await s.deps.db.query('select task, payload, last_error from nodeharbor.jobs')).rows]);
  expect(traces).not.toContain(NEW_KEY);
  expect(traces).not.toContain(GALA_KEY);
  // The node's banner shows the new key (node-logs redacts it for the reader).
  const lines = await createSimulatedDriver(s.deps.db, { installSeconds: 0, deleteSeconds: 0 }).logs(id, 10);
  expect(lines.some((l) => l.includes(`(run ${run! + 1})`))).toBe(true);
  expect(lines.some((l) => l.endsWith(`key=${NEW_KEY}`))).toBe(true);
});

it('is no restart to the node monitor: the new run is the key change, not a crash', async () => {
  const u = await createTestUser(s, { credits: 20 });
  const id = await createActive(u, 'rotate-2');
  const deps = await createJobDeps(s.deps);
  await sweepNodes(deps);
  expect((await update(u, id, { api_key: NEW_KEY })).error).toBeNull();
  await waitFor('the key to reach the node', () => queueIsIdle(s.deps.db));
  await sweepNodes(deps);
  expect((await u.client.from('services').select('node_state').eq('id', id).single()).data).toEqual({ node_state: 'online' });
  expect((await eventsOf(id)).map((e) => e.event)).not.toContain('node_restarted');
});

it('answers the creation rules for the key, the plan rule included, and changes nothing', async () => {
  const u = await createTestUser(s, { credits: 20 });
  const town = await createActive(u, 'rules-1');
  const master = await createActive(u, 'rules-2', MASTER_NODE, LICENCE_KEY);
  const license = 'License key';
  const cases: [string, string, string, string | null][] = [
    [town, '', messages.apiKeyRequired(), null],
    [town, 'short=', messages.apiKeyInvalid(), messages.apiKeyDefaultLength()],
    [town, `${'A'.repeat(21)} ${'A'.repeat(21)}=`, messages.apiKeyInvalid(), messages.apiKeySpaces()],
    [town, 'A'.repeat(44), messages.apiKeyInvalid(), messages.apiKeyDefaultEnding()],
    [town, `${'A'.repeat(42)}-=`, messages.apiKeyInvalid(), messages.apiKeyChars()],
    // The Master Node's key is a "License key", as its label says.
    [master, '', messages.apiKeyRequired(license), null],
    [master, 'MN-1', messages.apiKeyInvalid(license), messages.apiKeyFormat('############-####-####-####-############', license)],
    [master, 'MN_0123456789_1234_5678_ABCD_01234567EFGH', messages.apiKeyInvalid(license), 'The licence key contains only letters, digits and hyphens'],
  ];
  for (const [id, key, message, details] of cases) {
    const { error } = await update(u, id, { api_key: key });
    expect({ key, message: error?.message, details: error?.details || null }).toEqual({ key, message, details });
  }
  expect(await keyOf(u, town)).toBe(GALA_KEY);
  expect(await keyOf(u, master)).toBe(LICENCE_KEY);
  expect((await eventsOf(town)).map((e) => e.event)).not.toContain('key_changed');
  expect(await keyJobs(town)).toEqual([]);
});

it('refuses the same key, queueing nothing, nor for a node not in the engine yet or any more', async () => {
  const u = await createTestUser(s, { credits: 20 });
  const id = await createActive(u, 'same-1');
  // The same key alone is said to be so (migration 0051); beside a new name, the name changes and the key job stays away.
  expect((await update(u, id, { api_key: GALA_KEY })).error?.message).toBe(messages.sameKey);
  expect((await update(u, id, { api_key: GALA_KEY, name: 'same-2' })).error).toBeNull();
  expect((await eventsOf(id)).map((e) => e.event)).not.toContain('key_changed');
  expect(await keyJobs(id)).toEqual([]);
  // Installing: the install reads the key; failed: the retry does.
  for (const state of ['installing', 'failed'] as const) {
    await forceServiceState(s.deps.db, state, 'id = $1', id);
    const key = `${state === 'failed' ? 'C' : 'D'}${'A'.repeat(42)}=`;
    expect((await update(u, id, { api_key: key })).error).toBeNull();
    expect(await keyOf(u, id)).toBe(key);
    expect(await keyJobs(id)).toEqual([]);
  }
  // An expired node (0 replicas) gets the key: it is queued.
  await forceServiceState(s.deps.db, 'expired', 'id = $1', id);
  expect((await update(u, id, { api_key: NEW_KEY })).error).toBeNull();
  expect(await keyJobs(id)).toHaveLength(1);
  await forceServiceState(s.deps.db, 'deleting', 'id = $1', id);
  expect((await update(u, id, { api_key: GALA_KEY })).error?.message).toBe('Service is currently being deleted...');
  expect(await keyOf(u, id)).toBe(NEW_KEY);
});

it('renames with the creation rules, records both names, and leaves the node alone', async () => {
  const u = await createTestUser(s, { credits: 20 });
  const id = await createActive(u, 'first-name');
  await createActive(u, 'Taken-Name');
  const run = await runOf(id);
  const refusals: [string, string][] = [
    ['', messages.serviceNameRequired],
    ['ab', messages.serviceNameShort],
    ['abcdefghijklmnopq', messages.serviceNameLong],
    ['my node', messages.serviceNameSpaces],
    ['node$', messages.serviceNameChars],
    ['-node', messages.serviceNameEdges],
    ['taken-name', messages.serviceNameTaken],
  ];
  for (const [name, message] of refusals) expect((await update(u, id, { name })).error?.message, name).toBe(message);
  const { data, error } = await update(u, id, { name: 'second-name' });
  expect(error).toBeNull();
  expect(data).toMatchObject({ name: 'second-name', api_key: GALA_KEY });
  const events = await eventsOf(id);
  expect(events.filter((e) => e.event === 'renamed')).toEqual([{ event: 'renamed', detail: { from: 'first-name', to: 'second-name' } }]);
  expect(await keyJobs(id)).toEqual([]);
  expect(await runOf(id)).toBe(run);
});

it("refuses a stranger's service as not found, an anonymous caller, an aal1 session of an enrolled owner and a deleted account's token", async () => {
  const owner = await createTestUser(s, { credits: 20 });
  const id = await createActive(owner, 'guarded-1');
  const stranger = await createTestUser(s);
  const foreign = await update(stranger, id, { api_key: NEW_KEY, name: 'stolen' });
  expect(foreign.status).toBe(404);
  expect(foreign.error?.message).toBe('Service not found');
  const anonymous = await s.client().rpc('manage_service_operation', { p_service_id: id, p_operation: 'update', p_updates: { api_key: NEW_KEY } });
  expect(anonymous.status).toBe(401);

  const enrolled = await createTestUser(s, { credits: 20 });
  const mine = await createActive(enrolled, 'guarded-2');
  await verifyNewFactor(enrolled);
  const aal1 = await signInAal1(s, enrolled);
  const stepUp = await aal1.rpc('manage_service_operation', { p_service_id: mine, p_operation: 'update', p_updates: { api_key: NEW_KEY } });
  expect(stepUp.status).toBe(403);
  expect(stepUp.error?.message).toBe(messages.secondFactorRequired);

  const leaving = await createTestUser(s, { credits: 20 });
  const theirs = await createActive(leaving, 'guarded-3');
  expect((await leaving.client.rpc('delete_own_account', { p_email: leaving.email })).error).toBeNull();
  const late = await update(leaving, theirs, { api_key: NEW_KEY });
  // Deleting the account ended its sessions: the token is refused before the function runs.
  expect(late.status).toBe(401);
  expect(late.error?.message).toBe('Session from session_id claim in JWT does not exist');

  // The deleted account's key was wiped with it: none of the three holds the attacker's key.
  for (const [svc, key] of [
    [id, GALA_KEY],
    [mine, GALA_KEY],
    [theirs, ''],
  ] as const) {
    const { rows } = await s.deps.db.query<{ key: string; name: string }>(
      'select private.decrypt_with_either_key(api_key_encrypted) as key, name from private.services where id = $1',
      [svc],
    );
    expect(rows[0]!.key).toBe(key);
    expect(rows[0]!.name).not.toBe('stolen');
    expect(await keyJobs(svc)).toEqual([]);
  }
});
