import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { nodeEventText, REWARD_RULES } from '../../src/shared/node-health';
import { createJobDeps } from '../../src/server/jobs/app-worker';
import type { JobDeps } from '../../src/server/jobs/task';
import { simulateCrash, simulateOutage } from '../../src/server/provisioning/drivers/simulated';
import { installNode } from '../../src/server/provisioning/install-node';
import { sweepNodes } from '../../src/server/provisioning/node-monitor';
import { forceServiceState } from '../helpers/service-state';
import { startTestServer, type TestServer } from '../helpers/server';
import { createTestUser, GALA_KEY, LICENCE_KEY, MASTER_NODE, TOWN_STAR, type TestUser } from '../helpers/users';
import { expectLedgerBalanced } from '../helpers/ledger';

// The node monitor on the simulated engine, through the API as owners read it (issue 16);
// test/docker/ runs the same against a real Swarm.

let s: TestServer;
let deps: JobDeps;
let owner: TestUser;
let other: TestUser;

beforeAll(async () => {
  s = await startTestServer({
    RATE_LIMITS_ENABLED: 'false',
    PROVISION_INSTALL_SECONDS: '0',
    PROVISION_DELETE_SECONDS: '0',
    INSTALL_SETTLE_SECONDS: '0',
    NODE_ALERTS_PER_HOUR: '2',
  });
  deps = await createJobDeps(s.deps);
  owner = await createTestUser(s, { credits: 100 });
  other = await createTestUser(s, { credits: 100 });
});
// Money moves here: every balance stays its ledger's sum.
afterEach(() => expectLedgerBalanced(s.deps.db));
afterAll(() => s.stop());

const sql = async <T>(text: string, params: unknown[] = []) => (await s.deps.db.query<T>(text, params)).rows;
/**
 * As if `seconds` had passed since the last sweep, without waiting for them: the monitor counts
 * the time between two sweeps from private.node_monitor.swept_at to the next sweep's now().
 */
const timePasses = (seconds: number) => sql('update private.node_monitor set swept_at = swept_at - make_interval(secs => $1)', [seconds]);
/** One sweep whose last sample was `hours` ago, allowed to bridge that gap: it spreads the time over the UTC days. */
async function sweepAfterHours(hours: number) {
  await sql('update private.node_monitor set swept_at = now() - make_interval(hours => $1)', [hours]);
  await sql(`select * from private.record_node_samples($1::jsonb, 200000, 600)`, [
    JSON.stringify((await deps.provisioner.observe()).map((o) => ({ service_id: o.serviceId, state: o.state, task_id: o.taskId }))),
  ]);
}

async function activeService(user: TestUser, name: string, product = MASTER_NODE, key = LICENCE_KEY): Promise<string> {
  const { data, error } = await user.client.rpc('create_service_securely', { p_name: name, p_description: null, p_api_key: key, p_product_id: product });
  if (error) throw error;
  const id = (data as { id: string }).id;
  await installNode(deps, id);
  return id;
}

const view = async (user: TestUser, id: string) =>
  (await user.client.from('services').select('node_state, last_seen_at').eq('id', id).single()).data as {
    node_state: string | null;
    last_seen_at: string | null;
  } | null;
const uptime = async (user: TestUser, id: string) =>
  (await user.client.from('service_uptime').select('*').eq('service_id', id).order('day')).data as {
    day: string;
    seconds_online: number;
    seconds_observed: number;
    threshold_seconds: number | null;
    meets_threshold: boolean | null;
    reward_rule: string | null;
    longest_streak_seconds: number;
  }[];
const nodeEvents = async (id: string) =>
  (
    await sql<{ event: string; detail: Record<string, unknown> | null }>(
      `select event, detail from public.service_events where service_id = $1 and event like 'node\\_%' order by id`,
      [id],
    )
  ).map((e) => nodeEventText(e.event, e.detail));
const mails = async (subject: string) =>
  sql<{ to_address: string; text_body: string }>('select to_address, text_body from nodeharbor.outbox where subject = $1', [subject]);

describe('the node monitor', () => {
  it('reports a node online with its last-seen time, and writes only transitions', async () => {
    const id = await activeService(owner, 'mon-online');
    expect(await view(owner, id)).toEqual({ node_state: 'unknown', last_seen_at: null });
    await sweepNodes(deps);
    const first = await view(owner, id);
    expect(first?.node_state).toBe('online');
    expect(Date.parse(first!.last_seen_at!)).toBeGreaterThan(Date.now() - 60_000);
    const changed = async () => (await sql<{ changed_at: Date }>('select changed_at from private.node_status where service_id = $1', [id]))[0]!.changed_at;
    const before = await changed();
    await sweepNodes(deps);
    await sweepNodes(deps);
    expect(await nodeEvents(id)).toEqual(['Node online']);
    // Its row is not written again while nothing changes; the last sweep says when it was seen.
    expect(await changed()).toEqual(before);
    expect(Date.parse((await view(owner, id))!.last_seen_at!)).toBeGreaterThan(Date.parse(first!.last_seen_at!));
    // A stale sample says nothing of now.
    await sql(`update private.node_monitor set swept_at = now() - interval '6 minutes'`);
    expect((await view(owner, id))?.node_state).toBe('unknown');
  });

  it('counts uptime per UTC day, and the reward threshold flips once it is reached', async () => {
    const id = await activeService(owner, 'mon-uptime');
    await sql('update public.products set uptime_threshold_seconds = 2 where id = $1', [MASTER_NODE]);
    try {
      await sweepNodes(deps);
      expect(await uptime(owner, id)).toEqual([]);
      await timePasses(1.1);
      await sweepNodes(deps);
      const [early] = await uptime(owner, id);
      expect(early).toMatchObject({ day: new Date().toISOString().slice(0, 10), threshold_seconds: 2, meets_threshold: false });
      expect(early!.seconds_online).toBeGreaterThanOrEqual(1);
      expect(early!.seconds_observed).toBe(early!.seconds_online);
      await timePasses(1.5);
      await sweepNodes(deps);
      const [later] = await uptime(owner, id);
      expect(later!.seconds_online).toBeGreaterThan(early!.seconds_online);
      expect(later!.meets_threshold).toBe(true);
    } finally {
      await sql('update public.products set uptime_threshold_seconds = 28800 where id = $1', [MASTER_NODE]);
    }
    // Town Star has no daily threshold: no verdict either way, and its rule is continuous uptime.
    const town = await activeService(owner, 'mon-town', TOWN_STAR, GALA_KEY);
    await sweepNodes(deps);
    await timePasses(1.1);
    await sweepNodes(deps);
    expect((await uptime(owner, town))[0]).toMatchObject({ threshold_seconds: null, meets_threshold: null, reward_rule: 'continuous' });
    expect((await uptime(owner, id))[0]).toMatchObject({ reward_rule: 'daily_threshold' });
  });

  it("keeps each product's reward rule as data: it follows the product's threshold, and the shared list names every rule", async () => {
    const rules = async () =>
      Object.fromEntries((await sql<{ id: string; reward_rule: string }>('select id, reward_rule from public.products')).map((r) => [r.id, r.reward_rule]));
    expect(await rules()).toMatchObject({ [TOWN_STAR]: 'continuous', [MASTER_NODE]: 'daily_threshold' });
    expect(Object.values(await rules()).every((r) => (REWARD_RULES as readonly string[]).includes(r))).toBe(true);
    // A network that brings in a daily minimum is a change to its rows, not to the code.
    await sql('update public.products set uptime_threshold_seconds = 6 * 3600 where id = $1', [TOWN_STAR]);
    try {
      expect((await rules())[TOWN_STAR]).toBe('daily_threshold');
    } finally {
      await sql('update public.products set uptime_threshold_seconds = null where id = $1', [TOWN_STAR]);
    }
    expect((await rules())[TOWN_STAR]).toBe('continuous');
    // The rule is derived, never written apart from its threshold.
    await expect(sql(`update public.products set reward_rule = 'daily_threshold' where id = $1`, [TOWN_STAR])).rejects.toThrow(
      /"reward_rule" can only be updated to DEFAULT/,
    );
  });

  it('keeps the online streak of the run a node is on, and the longest within each UTC day', async () => {
    const id = await activeService(owner, 'mon-streak', TOWN_STAR, GALA_KEY);
    const streak = async () =>
      (await owner.client.from('services').select('node_state, online_since').eq('id', id).single()).data as {
        node_state: string;
        online_since: string | null;
      };
    await sweepNodes(deps);
    const first = await streak();
    expect(first.node_state).toBe('online');
    expect(Math.abs(Date.parse(first.online_since!) - Date.now())).toBeLessThan(60_000);
    // Online for 100 s, the last 10 since the last sweep.
    await sql(`update private.node_status set online_since = now() - interval '100 seconds' where service_id = $1`, [id]);
    await timePasses(10);
    await sweepNodes(deps);
    const [today] = await uptime(owner, id);
    expect(today!.longest_streak_seconds).toBeGreaterThanOrEqual(99);
    expect(today!.longest_streak_seconds).toBeLessThan(130);
    const since = (await streak()).online_since;
    // A restart between two sweeps ends the streak: the new run starts one, and the day keeps the longest.
    await simulateCrash(s.deps.db, id);
    await sql('update nodeharbor.simulated_nodes set restarting_until = now(), started_at = now() where service_id = $1', [id]);
    await timePasses(1.1);
    await sweepNodes(deps);
    const after = await streak();
    expect(after.node_state).toBe('online');
    expect(Date.parse(after.online_since!)).toBeGreaterThan(Date.parse(since!));
    expect((await uptime(owner, id))[0]!.longest_streak_seconds).toBe(today!.longest_streak_seconds);
    // Down: no streak at all.
    await simulateOutage(s.deps.db, id, 30);
    await sweepNodes(deps);
    expect(await streak()).toEqual({ node_state: 'offline', online_since: null });
    await simulateOutage(s.deps.db, id, 0);
    await sweepNodes(deps);
    expect((await streak()).online_since).not.toBeNull();

    // Online for 26 hours without a break: each UTC day keeps the part of the streak that fell on it.
    await sql(`update private.node_status set online_since = now() - interval '26 hours' where service_id = $1`, [id]);
    await sql('delete from private.node_uptime where service_id = $1', [id]);
    await sweepAfterHours(26);
    const days = await sql<{ online: number; longest: number; today: boolean; since_midnight: number }>(
      `select seconds_online as online, longest_streak_seconds as longest, day = (now() at time zone 'UTC')::date as today,
              extract(epoch from (now() at time zone 'UTC') - date_trunc('day', now() at time zone 'UTC')) as since_midnight
         from private.node_uptime where service_id = $1 order by day`,
      [id],
    );
    expect(days.length).toBeGreaterThanOrEqual(2);
    for (const d of days) expect(d.longest).toBeCloseTo(d.online, 0);
    const todays = days.find((d) => d.today)!;
    expect(todays.longest).toBeCloseTo(todays.since_midnight, -1);
  });

  it('splits time at UTC midnight, counts offline time as observed only, and leaves a gap unobserved', async () => {
    const id = await activeService(owner, 'mon-days');
    await sweepNodes(deps);
    // The last sample 26 hours ago, online: one sweep allowed to bridge it spreads it over the days.
    await sql('delete from private.node_uptime where service_id = $1', [id]);
    await sweepAfterHours(26);
    const rows = await sql<{ day: string; online: number; observed: number; today: boolean; since_midnight: number }>(
      `select day::text, seconds_online as online, seconds_observed as observed, day = (now() at time zone 'UTC')::date as today,
              extract(epoch from (now() at time zone 'UTC') - date_trunc('day', now() at time zone 'UTC')) as since_midnight
         from private.node_uptime where service_id = $1 order by day`,
      [id],
    );
    expect(rows.length).toBeGreaterThanOrEqual(2);
    expect(rows.reduce((t, r) => t + r.online, 0)).toBeCloseTo(26 * 3600, -1);
    expect(rows.every((r) => r.online === r.observed && r.observed <= 86400)).toBe(true);
    const today = rows.find((r) => r.today)!;
    expect(today.online).toBeCloseTo(today.since_midnight, -1);

    // Offline since the last sample: observed, not online.
    await simulateOutage(s.deps.db, id, 30);
    await sweepNodes(deps);
    const before = (
      await sql<{ online: number; observed: number }>(
        `select seconds_online as online, seconds_observed as observed from private.node_uptime where service_id = $1 and day = (now() at time zone 'UTC')::date`,
        [id],
      )
    )[0]!;
    await timePasses(1.1);
    await sweepNodes(deps);
    const after = (
      await sql<{ online: number; observed: number }>(
        `select seconds_online as online, seconds_observed as observed from private.node_uptime where service_id = $1 and day = (now() at time zone 'UTC')::date`,
        [id],
      )
    )[0]!;
    expect(after.online).toBe(before.online);
    expect(after.observed).toBeGreaterThan(before.observed + 1);

    // No sweep for longer than three intervals: the gap is not observed at all.
    await sql(`update private.node_monitor set swept_at = now() - interval '10 minutes'`);
    await sweepNodes(deps);
    const gap = (
      await sql<{ observed: number }>(
        `select seconds_observed as observed from private.node_uptime where service_id = $1 and day = (now() at time zone 'UTC')::date`,
        [id],
      )
    )[0]!;
    expect(gap.observed).toBe(after.observed);
    await simulateOutage(s.deps.db, id, 0);
  });

  it('sees a crash as restarting, then online, with a readable event and the restart counted', async () => {
    const id = await activeService(owner, 'mon-crash');
    await sweepNodes(deps);
    await simulateCrash(s.deps.db, id);
    await sweepNodes(deps);
    expect((await view(owner, id))?.node_state).toBe('restarting');
    // The restart delay is over.
    await sql('update nodeharbor.simulated_nodes set restarting_until = now(), started_at = now() where service_id = $1', [id]);
    await sweepNodes(deps);
    expect((await view(owner, id))?.node_state).toBe('online');
    expect(await nodeEvents(id)).toEqual(['Node online', 'Node restarted (exit code 137)', 'Node back online']);
    // A crash between two sweeps is still a restart: the node's run changed.
    await simulateCrash(s.deps.db, id);
    await sql('update nodeharbor.simulated_nodes set restarting_until = now(), started_at = now() where service_id = $1', [id]);
    await sweepNodes(deps);
    expect((await nodeEvents(id)).slice(3)).toEqual(['Node restarted (exit code 137)']);
    const counted = await owner.client
      .from('service_events')
      .select('id', { count: 'exact', head: true })
      .eq('service_id', id)
      .eq('event', 'node_restarted')
      .gte('created_at', new Date(Date.now() - 86_400_000).toISOString());
    expect(counted.count).toBe(2);
  });

  it('reports an expired service stopped, and a node missing from the engine offline', async () => {
    const expired = await activeService(owner, 'mon-expired');
    const missing = await activeService(owner, 'mon-missing');
    await deps.provisioner.stop(expired);
    await forceServiceState(s.deps.db, 'expired', 'id = $1', expired);
    await sql('delete from nodeharbor.simulated_nodes where service_id = $1', [missing]);
    await sweepNodes(deps);
    expect((await view(owner, expired))?.node_state).toBe('stopped');
    expect((await view(owner, missing))?.node_state).toBe('offline');
    // Its owner reads that it is offline; the engine's reason is the admins' (the event's notes, migration 0051).
    expect((await nodeEvents(missing)).at(-1)).toBe('Node offline');
    expect(
      await sql(
        `select n.detail from private.service_event_notes n join public.service_events e on e.id = n.event_id
          where e.service_id = $1 and e.event = 'node_offline'`,
        [missing],
      ),
    ).toEqual([{ detail: { reason: 'The node is missing from the engine' } }]);
  });
});

describe('alerts', () => {
  it('mails the owner once when a node has been down too long, and once when it is back', async () => {
    const id = await activeService(owner, 'mon-alert');
    await sweepNodes(deps);
    await simulateOutage(s.deps.db, id, 30);
    await sweepNodes(deps);
    expect((await view(owner, id))?.node_state).toBe('offline');
    expect(await mails('Your node mon-alert is offline')).toEqual([]);
    // Down for longer than NODE_DOWN_ALERT_MINUTES (10).
    await sql(`update private.node_status set down_since = now() - interval '11 minutes' where service_id = $1`, [id]);
    await sweepNodes(deps);
    await sweepNodes(deps);
    const down = await mails('Your node mon-alert is offline');
    expect(down).toHaveLength(1);
    expect(down[0]!.to_address).toBe(owner.email);
    // The engine's reason is the admins' (the fleet), not the owner's.
    expect(down[0]!.text_body).not.toContain('simulated outage');
    expect(down[0]!.text_body).toContain(`/dashboard/services/${id}`);
    expect(await sql('select 1 from private.node_incidents where service_id = $1 and resolved_at is null', [id])).toHaveLength(1);

    await simulateOutage(s.deps.db, id, 0);
    await sweepNodes(deps);
    await sweepNodes(deps);
    const up = await mails('Your node mon-alert is back online');
    expect(up).toHaveLength(1);
    expect(up[0]!.text_body).toMatch(/after 1[01] minutes offline/);
    expect(await sql(`select resolution from private.node_incidents where service_id = $1`, [id])).toEqual([{ resolution: 'online' }]);
  });

  it("mails a Town Star owner after 5 minutes down, saying the licence may move, before a Master Node's 10", async () => {
    // An owner of their own: NODE_ALERTS_PER_HOUR is 2 in this file.
    const user = await createTestUser(s, { credits: 100 });
    const town = await activeService(user, 'alert-town', TOWN_STAR, GALA_KEY);
    const master = await activeService(user, 'alert-master');
    await sweepNodes(deps);
    for (const id of [town, master]) await simulateOutage(s.deps.db, id, 30);
    await sweepNodes(deps);
    // Down for 4 minutes: neither yet.
    await sql(`update private.node_status set down_since = now() - interval '4 minutes' where service_id = any($1::uuid[])`, [[town, master]]);
    await sweepNodes(deps);
    expect(await mails('Your node alert-town is offline')).toEqual([]);
    // Down for 6: the Town Star's alert, with what is at stake on Gala; the Master Node waits for its 10.
    await sql(`update private.node_status set down_since = now() - interval '6 minutes' where service_id = any($1::uuid[])`, [[town, master]]);
    await sweepNodes(deps);
    const townMail = await mails('Your node alert-town is offline');
    expect(townMail).toHaveLength(1);
    expect(townMail[0]!.text_body).toContain('After about 10 minutes offline, Gala may pair your licence with another node.');
    expect(await mails('Your node alert-master is offline')).toEqual([]);
    await sql(`update private.node_status set down_since = now() - interval '10 minutes 30 seconds' where service_id = $1`, [master]);
    await sweepNodes(deps);
    const masterMail = await mails('Your node alert-master is offline');
    expect(masterMail).toHaveLength(1);
    expect(masterMail[0]!.text_body).not.toContain('Gala');
    // Back online: the Town Star's mail points to its streak, the Master Node's to its threshold.
    for (const id of [town, master]) await simulateOutage(s.deps.db, id, 0);
    await sweepNodes(deps);
    expect((await mails('Your node alert-town is back online'))[0]!.text_body).toContain('Its online streak and uptime:');
    expect((await mails('Your node alert-master is back online'))[0]!.text_body).toContain("Today's uptime against the reward threshold:");
  });

  it('caps node-down mails per owner per hour, still recording each incident', async () => {
    const user = await createTestUser(s, { credits: 100 });
    const ids = [await activeService(user, 'cap-1'), await activeService(user, 'cap-2'), await activeService(user, 'cap-3')];
    await sweepNodes(deps);
    for (const id of ids) await simulateOutage(s.deps.db, id, 30);
    await sweepNodes(deps);
    await sql(`update private.node_status set down_since = now() - interval '11 minutes' where service_id = any($1::uuid[])`, [ids]);
    await sweepNodes(deps);
    const sent = await sql<{ subject: string }>(`select subject from nodeharbor.outbox where to_address = $1 and subject like 'Your node %'`, [user.email]);
    // NODE_ALERTS_PER_HOUR is 2 in this file.
    expect(sent).toHaveLength(2);
    expect(await sql('select 1 from private.node_incidents where service_id = any($1::uuid[]) and resolved_at is null', [ids])).toHaveLength(3);
    for (const id of ids) await simulateOutage(s.deps.db, id, 0);
    await sweepNodes(deps);
    const back = await sql<{ subject: string }>(`select subject from nodeharbor.outbox where to_address = $1 and subject like '%back online'`, [user.email]);
    // Only the incidents that were mailed get a "back online".
    expect(back).toHaveLength(2);
  });

  it('closes the incident of a service deleted while down, without a mail', async () => {
    const id = await activeService(owner, 'mon-gone');
    await sweepNodes(deps);
    await simulateOutage(s.deps.db, id, 30);
    await sweepNodes(deps);
    await sql(`update private.node_status set down_since = now() - interval '11 minutes' where service_id = $1`, [id]);
    await sweepNodes(deps);
    await forceServiceState(s.deps.db, 'deleted', 'id = $1', id);
    await sweepNodes(deps);
    expect(await sql(`select resolution from private.node_incidents where service_id = $1`, [id])).toEqual([{ resolution: 'gone' }]);
    expect(await mails('Your node mon-gone is back online')).toEqual([]);
  });
});

describe('what another user sees', () => {
  it("nothing of a stranger's node: no state, no uptime, no events", async () => {
    const id = await activeService(owner, 'mon-private');
    await sweepNodes(deps);
    await timePasses(1.1);
    await sweepNodes(deps);
    expect((await uptime(owner, id)).length).toBe(1);
    expect(await uptime(other, id)).toEqual([]);
    expect((await other.client.from('services').select('id').eq('id', id)).data).toEqual([]);
    expect((await other.client.from('service_events').select('id').eq('service_id', id)).data).toEqual([]);
    expect((await s.client().from('service_uptime').select('*')).data ?? []).toEqual([]);
  });
});

describe('retention', () => {
  it('keeps uptime for 90 days', async () => {
    const id = await activeService(owner, 'mon-old');
    await sql(
      `insert into private.node_uptime (service_id, day, seconds_online, seconds_observed)
       values ($1, (now() at time zone 'UTC')::date - 91, 10, 10), ($1, (now() at time zone 'UTC')::date - 89, 10, 10)`,
      [id],
    );
    await sql('select private.prune_node_history(90)');
    expect(await sql<{ age: number }>(`select (now() at time zone 'UTC')::date - day as age from private.node_uptime where service_id = $1`, [id])).toEqual([
      { age: 89 },
    ]);
  });
});
