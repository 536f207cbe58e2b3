import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INCIDENT_BODY_MAX, INCIDENT_TITLE_MAX, incidentBodyError, incidentTitleError, statusPageMessages } from '../../src/shared/status-page';
import type { Database } from '../../src/server/db/database';
import { createJobDeps } from '../../src/server/jobs/app-worker';
import type { JobDeps } from '../../src/server/jobs/task';
import { monitorNodes } from '../../src/server/jobs/tasks/monitor-nodes';
import { probeApi } from '../../src/server/jobs/tasks/probe-api';
import { statusTexts } from '../../src/server/status/status-html';
import { statusRoutes } from '../../src/server/status/status.routes';
import type { StatusSummary } from '../../src/server/status/status-summary';
import { forceServiceState } from '../helpers/service-state';
import { startTestServer, type TestServer } from '../helpers/server';
import { createTestUser, LICENCE_KEY, MASTER_NODE, type TestUser, createService } from '../helpers/users';

// The public status page (issue 37, item 3; decision 045): figures from the monitor's own rows,
// none below the floor, incidents whose updates are never changed, no customer data, no script.

let s: TestServer;
let deps: JobDeps;
let admin: TestUser;
let customer: TestUser;
const townStar: string[] = [];
let masterNode: string;

/** The floor this server runs with: three Town Star nodes pass it, one Master Node does not. */
const MIN_NODES = 2;

beforeAll(async () => {
  s = await startTestServer({ RATE_LIMITS_ENABLED: 'false', STATUS_MIN_NODES: String(MIN_NODES), STATUS_CACHE_SECONDS: '0' });
  deps = await createJobDeps(s.deps);
  admin = await createTestUser(s, { admin: true });
  customer = await createTestUser(s, { credits: 100, fullName: 'Zoë Secretname', email: `secret-${Date.now()}@customer.test` });
  for (const name of ['hidden-one', 'hidden-two', 'hidden-three']) townStar.push(await createService(customer, name));
  const { data, error } = await customer.client.rpc('create_service_securely', {
    p_name: 'hidden-mn',
    p_description: null,
    p_api_key: LICENCE_KEY,
    p_product_id: MASTER_NODE,
  });
  if (error) throw error;
  masterNode = (data as { id: string }).id;
  await forceServiceState(s.deps.db, 'active', 'user_id = $1', customer.id);
});
afterAll(() => s.stop());

const summary = async (): Promise<StatusSummary> => (await (await fetch(`${s.url}/status.json`)).json()) as StatusSummary;
const page = async () => (await fetch(`${s.url}/status`)).text();

/** Seconds online and observed of a node on a day `ago` days before today (UTC). */
async function uptime(db: Database, serviceId: string, ago: number, online: number, observed: number) {
  await db.query(
    `insert into private.node_uptime (service_id, day, seconds_online, seconds_observed)
     values ($1, (now() at time zone 'UTC')::date - $2::integer, $3, $4)
     on conflict (service_id, day) do update set seconds_online = excluded.seconds_online, seconds_observed = excluded.seconds_observed`,
    [serviceId, ago, online, observed],
  );
}

describe('fleet availability', () => {
  it("is the monitor's own rows summed per product and day, refreshed by its sweep; a day below the floor has no figure", async () => {
    await uptime(s.deps.db, townStar[0]!, 1, 86_400, 86_400);
    await uptime(s.deps.db, townStar[1]!, 1, 43_200, 86_400);
    await uptime(s.deps.db, townStar[2]!, 1, 86_400, 86_400);
    await uptime(s.deps.db, masterNode, 1, 86_400, 86_400);
    await monitorNodes.run({}, deps);
    // The sweep itself wrote today's rows too: the expected figures are read from what it left.
    const { rows } = await s.deps.db.query<{ ago: number; online: number; observed: number; nodes: number }>(
      `select (now() at time zone 'UTC')::date - u.day as ago, sum(u.seconds_online)::float8 as online, sum(u.seconds_observed)::float8 as observed, count(*)::int as nodes
         from private.node_uptime u where u.service_id = any($1::uuid[]) and u.seconds_observed > 0 group by u.day`,
      [townStar],
    );
    const yesterday = rows.find((r) => r.ago === 1)!;
    expect(yesterday).toMatchObject({ online: 216_000, observed: 259_200, nodes: 3 });
    const today = rows.find((r) => r.ago === 0);
    const round = (online: number, observed: number) => Math.round((10_000 * online) / observed) / 100;

    const got = await summary();
    const ts = got.products.find((p) => p.name === 'Town Star')!;
    const mn = got.products.find((p) => p.name === 'Master Node')!;
    expect(ts.days.find((d) => d.day === dayAgo(1))?.availability).toBe(round(216_000, 259_200));
    expect(ts.today).toBe(today && today.nodes >= MIN_NODES ? round(today.online, today.observed) : null);
    const counted = rows.filter((r) => r.nodes >= MIN_NODES);
    expect(ts.ninety_days).toBe(
      round(
        counted.reduce((a, r) => a + r.online, 0),
        counted.reduce((a, r) => a + r.observed, 0),
      ),
    );
    expect(mn).toMatchObject({ today: null, ninety_days: null, days: [] });
    expect(await page()).toContain(statusTexts.notEnough);
  });

  it('counts no node its owner stopped, nor a service waiting for its renewal', async () => {
    await s.deps.db.query('update private.services set stopped_at = now() where id = $1', [townStar[1]]);
    await forceServiceState(s.deps.db, 'expired', 'id = $1', townStar[2]);
    await s.deps.db.query('select private.refresh_fleet_availability()');
    const ts = (await summary()).products.find((p) => p.name === 'Town Star')!;
    // One node left: below the floor, so yesterday shows nothing.
    expect(ts.days.find((d) => d.day === dayAgo(1))).toBeUndefined();
    await s.deps.db.query('update private.services set stopped_at = null where id = $1', [townStar[1]]);
    await forceServiceState(s.deps.db, 'active', 'id = $1', townStar[2]);
    await s.deps.db.query('select private.refresh_fleet_availability()');
  });
});

function dayAgo(n: number): string {
  return new Date(Date.now() - n * 86_400_000).toISOString().slice(0, 10);
}

describe('incidents', () => {
  const open = (user: TestUser, args: Partial<{ p_title: string; p_product_code: string | null; p_impact: string; p_status: string; p_body: string }>) =>
    user.client.rpc('open_status_incident', {
      p_title: 'Town Star nodes restarting',
      p_product_code: 'TOWNSTAR',
      p_impact: 'minor',
      p_status: 'investigating',
      p_body: 'We are looking into it.',
      ...args,
    });

  it('are opened and followed only by admins, in the shared words, and are recorded in the audit log', async () => {
    const refused = await open(customer, {});
    expect(refused.error?.message).toBe(statusPageMessages.onlyAdmins);
    const anon = await s
      .client()
      .rpc('open_status_incident', { p_title: 'x', p_product_code: null, p_impact: 'minor', p_status: 'investigating', p_body: 'x' });
    expect(anon.error).not.toBeNull();
    const cases: [Parameters<typeof open>[1], string][] = [
      [{ p_title: '  ' }, statusPageMessages.titleRequired],
      [{ p_title: 'x'.repeat(INCIDENT_TITLE_MAX + 1) }, statusPageMessages.titleTooLong],
      [{ p_impact: 'apocalyptic' }, statusPageMessages.impactUnknown],
      [{ p_status: 'panicking' }, statusPageMessages.statusUnknown],
      [{ p_body: '' }, statusPageMessages.bodyRequired],
      [{ p_body: 'x'.repeat(INCIDENT_BODY_MAX + 1) }, statusPageMessages.bodyTooLong],
      [{ p_product_code: 'NOPE' }, statusPageMessages.productUnknown],
    ];
    for (const [args, message] of cases) expect((await open(admin, args)).error?.message).toBe(message);
    // The form checks the same rules with the same words.
    expect(incidentTitleError('  ')).toBe(statusPageMessages.titleRequired);
    expect(incidentTitleError('x'.repeat(INCIDENT_TITLE_MAX + 1))).toBe(statusPageMessages.titleTooLong);
    expect(incidentBodyError('')).toBe(statusPageMessages.bodyRequired);
    expect(incidentBodyError('x'.repeat(INCIDENT_BODY_MAX + 1))).toBe(statusPageMessages.bodyTooLong);
    const none = await s.deps.db.query('select 1 from private.status_incidents');
    expect(none.rowCount).toBe(0);
  });

  it('shows an incident and its updates, newest first; a posted update is never changed, and a resolved incident takes none', async () => {
    const made = await open(admin, {});
    expect(made.error).toBeNull();
    const id = made.data as number;
    expect((await summary()).incidents[0]).toMatchObject({ id, title: 'Town Star nodes restarting', resolved_at: null });
    expect(await page()).toContain(statusTexts.minor);

    const post = (user: TestUser, status: string, body: string) => user.client.rpc('post_status_update', { p_incident_id: id, p_status: status, p_body: body });
    expect((await post(customer, 'identified', 'x')).error?.message).toBe(statusPageMessages.onlyAdmins);
    expect((await post(admin, 'identified', 'A faulty host.\nMoving nodes off it.')).error).toBeNull();
    expect((await post(admin, 'resolved', 'All nodes are back.')).error).toBeNull();
    const again = await post(admin, 'monitoring', 'Too late');
    expect(again.error?.message).toBe(statusPageMessages.incidentResolved);
    const missing = await admin.client.rpc('post_status_update', { p_incident_id: 999_999, p_status: 'resolved', p_body: 'x' });
    expect(missing.error?.message).toBe(statusPageMessages.incidentNotFound);

    await expect(s.deps.db.query(`update private.status_incident_updates set body = 'rewritten' where incident_id = $1`, [id])).rejects.toThrow(
      statusPageMessages.updatesAppendOnly,
    );
    await expect(s.deps.db.query('delete from private.status_incident_updates where incident_id = $1', [id])).rejects.toThrow(
      statusPageMessages.updatesAppendOnly,
    );

    const inc = (await summary()).incidents.find((i) => i.id === id)!;
    expect(inc.resolved_at).not.toBeNull();
    expect(inc.updates.map((u) => u.status)).toEqual(['resolved', 'identified', 'investigating']);
    const htmlText = await page();
    expect(htmlText.indexOf('All nodes are back.')).toBeLessThan(htmlText.indexOf('A faulty host.'));
    expect(htmlText).toContain(statusTexts.operational);

    const audit = await s.deps.db.query<{ action: string }>(`select action from private.admin_audit_log where target_id = $1 order by id`, [String(id)]);
    expect(audit.rows.map((r) => r.action)).toEqual(['status.incident_open', 'status.incident_update', 'status.incident_update']);
  });

  it('escapes what an admin writes', async () => {
    const made = await open(admin, { p_title: '<script>alert(1)</script>', p_body: '<img src=x onerror=alert(1)>' });
    expect(made.error).toBeNull();
    const htmlText = await page();
    expect(htmlText).not.toContain('<script');
    expect(htmlText).not.toContain('<img');
    expect(htmlText).toContain('&lt;script&gt;');
    await admin.client.rpc('post_status_update', { p_incident_id: made.data, p_status: 'resolved', p_body: 'Done.' });
  });
});

describe('the page', () => {
  it('is HTML with no script, answers with the cache time, and holds no customer, node or count', async () => {
    const res = await fetch(`${s.url}/status`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.headers.get('cache-control')).toBe('public, max-age=0');
    const text = await res.text();
    expect(text).not.toMatch(/<script/i);
    expect(text).toContain('<link rel="stylesheet" href="/status.css"');
    const css = await fetch(`${s.url}/status.css`);
    expect(css.headers.get('content-type')).toMatch(/^text\/css/);
    const json = await (await fetch(`${s.url}/status.json`)).text();
    for (const secret of [customer.email, customer.id, 'Zoë', 'Secretname', 'hidden-', masterNode, ...townStar]) {
      expect(text).not.toContain(secret);
      expect(json).not.toContain(secret);
    }
    expect(json).not.toMatch(/"nodes"/);
  });

  it('reads the database once per STATUS_CACHE_SECONDS, however many ask at once', async () => {
    let reads = 0;
    const counting = Object.assign(Object.create(s.deps.db) as Database, {
      query: (...args: Parameters<Database['query']>) => {
        if (String(args[0]).includes('status_summary')) reads++;
        return s.deps.db.query(...args);
      },
    });
    const app = statusRoutes({ db: counting, config: { ...s.deps.config, statusPage: { cacheSeconds: 60, minNodes: MIN_NODES } } });
    const answers = await Promise.all(Array.from({ length: 10 }, () => app.request('/status')));
    await app.request('/status.json');
    expect(answers.every((a) => a.status === 200)).toBe(true);
    expect(answers[0]!.headers.get('cache-control')).toBe('public, max-age=60');
    expect(reads).toBe(1);
  });

  it("shows the API's own probe: a minute answered counts, one unanswered turns the headline", async () => {
    await probeApi.run({}, deps);
    const ok = await s.deps.db.query<{ ok: boolean }>('select ok from private.api_probe_minutes order by minute desc limit 1');
    expect(ok.rows).toEqual([{ ok: true }]);
    expect((await summary()).api).toMatchObject({ today: 100, last_ok: true });
    await probeApi.run({}, { ...deps, publicUrl: 'http://127.0.0.1:9' });
    const got = await summary();
    expect(got.api.last_ok).toBe(false);
    expect(await page()).toContain(statusTexts.apiDown);
    await s.deps.db.query('delete from private.api_probe_minutes');
  });
});
