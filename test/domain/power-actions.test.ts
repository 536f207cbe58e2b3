import type { SupabaseClient } from '@supabase/supabase-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { powerMessages, POWER_ACTIONS_PER_HOUR } from '../../src/shared/power-actions';
import { messages } from '../../src/shared/validation';
import { signInAal1, verifyNewFactor } from '../helpers/mfa';
import { startTestServer, type TestServer } from '../helpers/server';
import { forceServiceState } from '../helpers/service-state';
import { createService, createTestUser, GALA_KEY, TOWN_STAR, type TestUser } from '../helpers/users';

// Restart, Stop and Start (issue 36, item 1; migration 0047): who may, in which states, what each
// records and queues, and the hourly limit, through supabase-js against the real server. The jobs
// are left queued (no worker): what they do is test/lifecycle/power-actions.test.ts.

let s: TestServer;
let admin: TestUser;
beforeAll(async () => {
  s = await startTestServer({ RATE_LIMITS_ENABLED: 'false' });
  admin = await createTestUser(s, { admin: true });
});
afterAll(() => s.stop());

const sql = <T>(text: string, params: unknown[] = []) => s.deps.db.query<T>(text, params).then((r) => r.rows);
const power = (c: SupabaseClient, id: unknown, action: unknown) => c.rpc('service_power_action', { p_service_id: id, p_action: action });
const MISSING = '00000000-0000-4000-8000-0000000000ff';

/** What a refusal must leave as it was: the service, its events, its power jobs and the audit log. */
const snapshot = async (id: string) =>
  (
    await sql<Record<string, unknown>>(
      `select s.state::text as state, s.stopped_at, s.updated_at,
              (select array_agg(e.event || ':' || coalesce(e.detail::text, '') order by e.id) from public.service_events e where e.service_id = s.id) as events,
              (select count(*)::int from nodeharbor.jobs j where j.task = 'power-node' and j.payload ->> 'serviceId' = s.id::text) as jobs,
              (select count(*)::int from private.admin_audit_log a where a.target_id = s.id::text) as audited
         from private.services s where s.id = $1`,
      [id],
    )
  )[0]!;
const powerEvents = async (id: string) =>
  (
    await sql<{ event: string; detail: unknown }>(`select event, detail from public.service_events where service_id = $1 and event like 'power%' order by id`, [
      id,
    ])
  ).map((e) => [e.event, e.detail]);
const jobs = async (id: string) =>
  (await sql<{ payload: unknown }>(`select payload from nodeharbor.jobs where task = 'power-node' and payload ->> 'serviceId' = $1 order by id`, [id])).map(
    (j) => j.payload,
  );

/** A service of `u`'s whose node runs (installed through the function the worker calls). */
async function activeService(u: TestUser, name: string): Promise<string> {
  const id = await createService(u, name);
  await sql('select private.complete_service_installation($1)', [id]);
  return id;
}

describe('service_power_action', () => {
  it('lets the owner stop, start and restart an active node: the answer, the view, one event and one job each', async () => {
    const u = await createTestUser(s, { credits: 10 });
    const id = await activeService(u, 'powered');
    const view = async () => (await u.client.from('service_power').select('service_id, stopped_at')).data;
    expect(await view()).toEqual([{ service_id: id, stopped_at: null }]);

    const stopped = await power(u.client, id, 'stop');
    expect(stopped.error).toBeNull();
    expect(stopped.data).toEqual({ id, name: 'powered', state: 'active', stopped_at: expect.any(String) });
    expect(await view()).toEqual([{ service_id: id, stopped_at: (stopped.data as { stopped_at: string }).stopped_at }]);
    // Stopped on request, the service stays active: its paid period runs on.
    expect((await snapshot(id)).state).toBe('active');

    const started = await power(u.client, id, 'start');
    expect(started.data).toEqual({ id, name: 'powered', state: 'active', stopped_at: null });
    const restarted = await power(u.client, id, 'restart');
    expect(restarted.data).toEqual({ id, name: 'powered', state: 'active', stopped_at: null });
    expect(await view()).toEqual([{ service_id: id, stopped_at: null }]);

    expect(await powerEvents(id)).toEqual([
      ['power_stop', { by: 'owner' }],
      ['power_start', { by: 'owner' }],
      ['power_restart', { by: 'owner' }],
    ]);
    // The owner reads them (the service page tells them), and the jobs go to the worker in order.
    const { data } = await u.client.from('service_events').select('event').eq('service_id', id).like('event', 'power%').order('id');
    expect(data).toEqual([{ event: 'power_stop' }, { event: 'power_start' }, { event: 'power_restart' }]);
    expect(await jobs(id)).toEqual([
      { serviceId: id, action: 'stop' },
      { serviceId: id, action: 'start' },
      { serviceId: id, action: 'restart' },
    ]);
    // The owner's own actions are not an admin's: nothing in the audit log.
    expect((await snapshot(id)).audited).toBe(0);
  });

  it('allows each action only where it means something, says why otherwise, and changes nothing', async () => {
    const u = await createTestUser(s, { credits: 100 });
    const installing = await createService(u, 'p-installing');
    const failed = await createService(u, 'p-failed');
    await sql('select private.fail_service_installation($1, $2)', [failed, 'No such image: x']);
    const suspended = await activeService(u, 'p-suspended');
    await forceServiceState(s.deps.db, 'suspended', 'id = $1', suspended, `terminates_at = now() + interval '14 days'`);
    const expired = await activeService(u, 'p-expired');
    await forceServiceState(s.deps.db, 'expired', 'id = $1', expired);
    const deleting = await activeService(u, 'p-deleting');
    expect((await u.client.rpc('manage_service_operation', { p_service_id: deleting, p_operation: 'delete' })).error).toBeNull();
    const running = await activeService(u, 'p-running');
    const stopped = await activeService(u, 'p-stopped');
    expect((await power(u.client, stopped, 'stop')).error).toBeNull();

    const cases: [string, string, string][] = [];
    for (const action of ['restart', 'stop', 'start']) {
      cases.push([installing, action, powerMessages.installing]);
      cases.push([failed, action, powerMessages.failed]);
      cases.push([suspended, action, powerMessages.suspended]);
      cases.push([expired, action, powerMessages.expired]);
      cases.push([deleting, action, powerMessages.deleting]);
    }
    cases.push([running, 'start', powerMessages.alreadyRunning]);
    cases.push([stopped, 'stop', powerMessages.alreadyStopped]);
    cases.push([stopped, 'restart', powerMessages.stoppedNoRestart]);
    for (const [id, action, message] of cases) {
      const before = await snapshot(id);
      const answer = await power(u.client, id, action);
      expect(answer, `${action} → ${message}`).toMatchObject({ status: 409, data: null, error: { code: 'PT409', message } });
      expect(await snapshot(id), `${action} → ${message}`).toEqual(before);
    }
  });

  it("answers another user's service, a missing one and a deleted one alike (404), and changes nothing", async () => {
    const owner = await createTestUser(s, { credits: 20 });
    const stranger = await createTestUser(s, { credits: 10 });
    const id = await activeService(owner, 'not-yours');
    const gone = await activeService(owner, 'gone-one');
    await forceServiceState(s.deps.db, 'deleted', 'id = $1', gone);
    const missing = await power(stranger.client, MISSING, 'stop');
    expect(missing).toMatchObject({ status: 404, data: null, error: { code: 'PT404', message: 'Service not found' } });
    for (const [who, target] of [
      [stranger, id],
      [owner, gone],
      [stranger, gone],
    ] as const) {
      for (const action of ['restart', 'stop', 'start']) {
        const before = await snapshot(target);
        const answer = await power(who.client, target, action);
        expect({ status: answer.status, data: answer.data, error: answer.error }).toEqual({ status: missing.status, data: null, error: missing.error });
        expect(await snapshot(target)).toEqual(before);
      }
    }
    // Nor does the view show it to anyone but its owner.
    expect((await stranger.client.from('service_power').select('*').eq('service_id', id)).data).toEqual([]);
    expect((await owner.client.from('service_power').select('*').eq('service_id', gone)).data).toEqual([]);
    expect((await admin.client.from('service_power').select('*').eq('service_id', id)).data).toEqual([]);
    const anonymous = await power(s.client(), id, 'stop');
    expect(anonymous.status).toBe(401);
    expect((await s.client().from('service_power').select('*')).error).not.toBeNull();
  });

  it('refuses an aal1 session of a user with a verified second factor (403, nothing changes), and allows the aal2 one', async () => {
    const u = await createTestUser(s, { credits: 10 });
    const id = await activeService(u, 'guarded-power');
    await verifyNewFactor(u);
    const aal1 = await signInAal1(s, u);
    for (const action of ['restart', 'stop', 'start']) {
      const before = await snapshot(id);
      const refused = await power(aal1, id, action);
      expect(refused).toMatchObject({ status: 403, data: null, error: { code: '42501', message: messages.secondFactorRequired } });
      expect(await snapshot(id)).toEqual(before);
    }
    expect((await aal1.from('service_power').select('*')).data).toEqual([]);
    expect((await power(u.client, id, 'stop')).error).toBeNull();
    expect((await snapshot(id)).stopped_at).not.toBeNull();
  });

  it(`allows ${POWER_ACTIONS_PER_HOUR} actions per service within any hour: the next is 429 and changes nothing, until the oldest is an hour old`, async () => {
    const u = await createTestUser(s, { credits: 20 });
    const id = await activeService(u, 'flapping');
    const other = await activeService(u, 'calm-one');
    // Stop and start in turn: ten actions, and the node is running again.
    for (let i = 0; i < POWER_ACTIONS_PER_HOUR; i++) expect((await power(u.client, id, i % 2 ? 'start' : 'stop')).error).toBeNull();
    const before = await snapshot(id);
    const eleventh = await power(u.client, id, 'restart');
    expect(eleventh).toMatchObject({ status: 429, data: null, error: { code: 'PT429', message: powerMessages.tooMany(60) } });
    expect(await snapshot(id)).toEqual(before);
    // The limit is the service's: another of the owner's is not held back.
    expect((await power(u.client, other, 'restart')).error).toBeNull();

    // The wait is until the oldest of the ten is an hour old, in whole minutes.
    const age = (minutes: number) =>
      sql(
        `update public.service_events set created_at = now() - make_interval(secs => $2)
          where id = (select min(id) from public.service_events where service_id = $1 and event like 'power%' and created_at > now() - interval '1 hour')`,
        [id, minutes * 60],
      );
    await age(50);
    expect((await power(u.client, id, 'restart')).error).toMatchObject({ message: powerMessages.tooMany(10) });
    await age(59.5);
    expect((await power(u.client, id, 'restart')).error).toMatchObject({ message: powerMessages.tooMany(1) });
    expect(await snapshot(id)).toEqual(before);
    await age(61);
    expect((await power(u.client, id, 'restart')).error).toBeNull();
    expect((await power(u.client, id, 'restart')).status).toBe(429);
  });

  it("counts an admin's actions with the owner's, and lets a burst of requests at once through only up to the limit", async () => {
    const u = await createTestUser(s, { credits: 10 });
    const id = await activeService(u, 'bursty');
    expect((await power(admin.client, id, 'restart')).error).toBeNull();
    const answers = await Promise.all(Array.from({ length: 12 }, () => power(u.client, id, 'restart')));
    expect(answers.map((a) => a.status).sort()).toEqual([...Array<number>(POWER_ACTIONS_PER_HOUR - 1).fill(200), 429, 429, 429]);
    expect(await powerEvents(id)).toHaveLength(POWER_ACTIONS_PER_HOUR);
    expect(await jobs(id)).toHaveLength(POWER_ACTIONS_PER_HOUR);
    expect((await power(admin.client, id, 'stop')).status).toBe(429);
  });

  it('refuses what is no action or no service id, and changes nothing', async () => {
    const u = await createTestUser(s, { credits: 10 });
    const id = await activeService(u, 'p-hostile');
    const before = await snapshot(id);
    for (const bad of [null, 'reboot', 'RESTART', 'stop; drop table private.services', '', 1, ['stop'], { action: 'stop' }]) {
      const answer = await power(u.client, id, bad);
      expect(answer.status, JSON.stringify(bad)).toBe(400);
      expect(answer.error?.message, JSON.stringify(bad)).toBeTruthy();
    }
    expect((await power(u.client, id, 'reboot')).error?.message).toBe(powerMessages.badAction);
    for (const badId of [null, 'not-a-uuid', 42]) {
      const answer = await power(u.client, badId, 'stop');
      expect(answer.status, JSON.stringify(badId)).toBeGreaterThanOrEqual(400);
      expect(answer.status, JSON.stringify(badId)).toBeLessThan(500);
    }
    expect((await u.client.rpc('service_power_action', { p_service_id: id })).error).not.toBeNull();
    expect(await snapshot(id)).toEqual(before);
    // Nor is the view a way to write it.
    expect((await u.client.from('service_power').update({ stopped_at: new Date().toISOString() }).eq('service_id', id)).error).not.toBeNull();
    expect((await u.client.from('service_power').insert({ service_id: id, stopped_at: new Date().toISOString() })).error).not.toBeNull();
    expect(await snapshot(id)).toEqual(before);
  });
});

describe('an admin', () => {
  it("acts on anyone's node: the event says an admin did, the audit log has it, and the answer carries no key", async () => {
    const owner = await createTestUser(s, { credits: 10 });
    const id = await activeService(owner, 'fleet-node');
    const stopped = await power(admin.client, id, 'stop');
    expect(stopped.error).toBeNull();
    expect(stopped.data).toEqual({ id, name: 'fleet-node', state: 'active', stopped_at: expect.any(String) });
    expect(JSON.stringify(stopped.data)).not.toContain(GALA_KEY);
    expect((await power(admin.client, id, 'start')).error).toBeNull();
    expect((await power(admin.client, id, 'restart')).error).toBeNull();
    expect(await powerEvents(id)).toEqual([
      ['power_stop', { by: 'admin' }],
      ['power_start', { by: 'admin' }],
      ['power_restart', { by: 'admin' }],
    ]);
    const audit = await sql<{ actor: string; action: string; target_label: string; before: unknown; after: unknown }>(
      `select actor, action, target_label, before, after from private.admin_audit_log where target_id = $1 order by id`,
      [id],
    );
    expect(audit).toEqual([
      { actor: admin.email, action: 'service.stop', target_label: 'fleet-node', before: { node: 'running' }, after: { node: 'stopped' } },
      { actor: admin.email, action: 'service.start', target_label: 'fleet-node', before: { node: 'stopped' }, after: { node: 'running' } },
      { actor: admin.email, action: 'service.restart', target_label: 'fleet-node', before: { node: 'running' }, after: { node: 'running' } },
    ]);
    // The admin's fleet shows the stop, for Start.
    expect((await power(admin.client, id, 'stop')).error).toBeNull();
    const { data } = await admin.client.rpc('admin_fleet', { p_sort: 'name', p_limit: 500 });
    expect((data as { service_id: string; stopped_at: string | null }[]).find((r) => r.service_id === id)?.stopped_at).toEqual(expect.any(String));
  });

  it('is held to the same rules of state, and a missing service is still not found', async () => {
    const owner = await createTestUser(s, { credits: 10 });
    const id = await createService(owner, 'adm-installing');
    expect(await power(admin.client, id, 'restart')).toMatchObject({ status: 409, error: { message: powerMessages.installing } });
    expect(await power(admin.client, MISSING, 'restart')).toMatchObject({ status: 404, error: { message: 'Service not found' } });
    expect((await snapshot(id)).audited).toBe(0);
  });
});

describe('a stop', () => {
  it('is forgotten when the service leaves the states that have a node: a reused purchase runs', async () => {
    const u = await createTestUser(s, { credits: 10 });
    const id = await activeService(u, 'p-reused');
    expect((await power(u.client, id, 'stop')).error).toBeNull();
    // Kept through a suspension and an expiry (their node is stopped anyway)...
    await sql(`update private.services set state = 'suspended', terminates_at = now() + interval '14 days' where id = $1`, [id]);
    expect((await snapshot(id)).stopped_at).not.toBeNull();
    await sql(`update private.services set state = 'active', terminates_at = null where id = $1`, [id]);
    expect((await snapshot(id)).stopped_at).not.toBeNull();
    // ...but not past its node: deleted, then reused by a new order, it is a new node that runs.
    expect((await u.client.rpc('manage_service_operation', { p_service_id: id, p_operation: 'delete' })).error).toBeNull();
    expect((await snapshot(id)).stopped_at).toBeNull();
    await sql(`update private.services set state = 'deleted' where id = $1`, [id]);
    const { data, error } = await u.client.rpc('create_service_securely', {
      p_name: 'p-again',
      p_description: null,
      p_api_key: GALA_KEY,
      p_product_id: TOWN_STAR,
    });
    expect(error).toBeNull();
    expect(data).toMatchObject({ id, reused: true, state: 'installing' });
    expect((await snapshot(id)).stopped_at).toBeNull();
  });
});
