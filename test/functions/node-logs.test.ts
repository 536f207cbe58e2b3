import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { LOG_LINES, REDACTED } from '../../src/shared/node-health';
import { LOG_FOLLOW_MINUTES, LOG_FOLLOW_SECONDS, LOG_TAIL_MAX, nodeLogsMessages } from '../../src/shared/node-logs';
import { messages } from '../../src/shared/validation';
import { createJobDeps } from '../../src/server/jobs/app-worker';
import type { JobDeps } from '../../src/server/jobs/task';
import { installNode } from '../../src/server/provisioning/install-node';
import { invokeFunction } from '../helpers/functions';
import { signInAal1, verifyNewFactor } from '../helpers/mfa';
import { forceServiceState } from '../helpers/service-state';
import { startTestServer, type TestServer } from '../helpers/server';
import { createTestUser, GALA_KEY, TOWN_STAR, type TestUser } from '../helpers/users';
import { expectLedgerBalanced } from '../helpers/ledger';
import { until } from '../helpers/wait';

// node-logs (issue 16): a node's last lines for its owner or an admin, the key never among them.

let s: TestServer;
let deps: JobDeps;
let owner: TestUser;
let stranger: TestUser;
let admin: TestUser;
let serviceId: string;
// A key whose base64 and URL-encoded forms differ from it: + / and = all need encoding.
const KEY = `Ab+/${'C'.repeat(40)}=`;

beforeAll(async () => {
  s = await startTestServer({ RATE_LIMITS_ENABLED: 'false', PROVISION_INSTALL_SECONDS: '0', INSTALL_SETTLE_SECONDS: '0' });
  deps = await createJobDeps(s.deps);
  owner = await createTestUser(s, { credits: 50 });
  stranger = await createTestUser(s, { credits: 50 });
  admin = await createTestUser(s, { admin: true });
  const { data, error } = await owner.client.rpc('create_service_securely', { p_name: 'logged', p_description: null, p_api_key: KEY, p_product_id: TOWN_STAR });
  if (error) throw error;
  serviceId = (data as { id: string }).id;
  await installNode(deps, serviceId);
});
// Money moves here: every balance stays its ledger's sum.
afterEach(() => expectLedgerBalanced(s.deps.db));
afterAll(() => s.stop());

const logs = (user: TestUser | undefined, body: unknown) => invokeFunction(user ? user.client : s.client(), 'node-logs', body);

describe('node-logs', () => {
  it("gives the owner the node's lines with the key redacted in every form", async () => {
    const r = await logs(owner, { service_id: serviceId });
    expect(r.status).toBe(200);
    const lines = r.body.lines as string[];
    expect(lines.some((l) => l.endsWith(`config: key=${REDACTED}`))).toBe(true);
    const text = JSON.stringify(r.body);
    for (const form of [KEY, Buffer.from(KEY).toString('base64').replace(/=+$/, ''), encodeURIComponent(KEY)]) expect(text).not.toContain(form);
  });

  it(`answers at most ${LOG_LINES} lines`, async () => {
    // Running for three hours: a heartbeat every 30 s is 360 lines.
    await s.deps.db.query(`update nodeharbor.simulated_nodes set started_at = now() - interval '3 hours' where service_id = $1`, [serviceId]);
    const r = await logs(owner, { service_id: serviceId });
    expect((r.body.lines as string[]).length).toBe(LOG_LINES);
    expect((r.body.lines as string[]).at(-1)).toMatch(/heartbeat 360:/);
  });

  it('refuses a visitor, and tells another user nothing more than for a service that does not exist', async () => {
    expect(await logs(undefined, { service_id: serviceId })).toEqual({ status: 401, body: { error: 'Authentication required' } });
    const theirs = await logs(stranger, { service_id: serviceId });
    const none = await logs(stranger, { service_id: '00000000-0000-4000-8000-0000000000ff' });
    expect(theirs).toEqual({ status: 404, body: { error: 'Service not found' } });
    expect(none).toEqual(theirs);
  });

  it("gives an admin any node's lines, redacted, and tells the owner in the service's log", async () => {
    const r = await logs(admin, { service_id: serviceId });
    expect(r.status).toBe(200);
    expect(JSON.stringify(r.body)).not.toContain(KEY);
    const { data } = await owner.client.from('service_events').select('event, detail').eq('service_id', serviceId).eq('event', 'logs_read');
    expect(data).toEqual([{ event: 'logs_read', detail: { by: 'admin' } }]);
  });

  it('refuses bad bodies with a clear message', async () => {
    expect(await logs(owner, {})).toEqual({ status: 400, body: { error: 'service_id is required' } });
    expect(await logs(owner, { service_id: 42 })).toEqual({ status: 400, body: { error: 'service_id is required' } });
    expect(await logs(owner, { service_id: "x' or 1=1 --" })).toEqual({ status: 400, body: { error: 'service_id must be a UUID' } });
  });

  it('has nothing for a deleted service', async () => {
    const { data } = await owner.client.rpc('create_service_securely', { p_name: 'gone', p_description: null, p_api_key: GALA_KEY, p_product_id: TOWN_STAR });
    const id = (data as { id: string }).id;
    await forceServiceState(s.deps.db, 'deleted', 'id = $1', id);
    expect(await logs(owner, { service_id: id })).toEqual({ status: 404, body: { error: 'Service not found' } });
  });

  it('needs the second factor of an account that has one', async () => {
    const user = await createTestUser(s, { credits: 50 });
    const { data } = await user.client.rpc('create_service_securely', { p_name: 'guarded', p_description: null, p_api_key: GALA_KEY, p_product_id: TOWN_STAR });
    await verifyNewFactor(user);
    const aal1 = await signInAal1(s, user);
    const r = await invokeFunction(aal1, 'node-logs', { service_id: (data as { id: string }).id });
    expect(r).toEqual({ status: 403, body: { error: messages.secondFactorRequired } });
  });
});

// Issue 36: the dialog follows (since), and downloads the last LOG_TAIL_MAX lines (tail).
describe('node-logs: tail and since', () => {
  let consoleId: string;
  beforeAll(async () => {
    const { data, error } = await owner.client.rpc('create_service_securely', {
      p_name: 'console',
      p_description: null,
      p_api_key: KEY,
      p_product_id: TOWN_STAR,
    });
    if (error) throw error;
    consoleId = (data as { id: string }).id;
    await installNode(deps, consoleId);
  });
  /** The node has run this long: a heartbeat every 30 s. */
  const runningFor = (interval: string) =>
    s.deps.db.query(`update nodeharbor.simulated_nodes set started_at = now() - $2::interval where service_id = $1`, [consoleId, interval]);
  const read = async (user: TestUser, extra: Record<string, unknown>) => {
    const r = await logs(user, { service_id: consoleId, ...extra });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return r.body as { lines: string[]; gap?: boolean };
  };
  const stamp = (line: string) => line.split(' ', 1)[0]!;

  it(`answers the last \`tail\` lines, up to ${LOG_TAIL_MAX}: all of an 8-hour node's, its key redacted`, async () => {
    await runningFor('8 hours');
    const last = (await read(owner, {})).lines;
    expect(last).toHaveLength(LOG_LINES);
    expect((await read(owner, { tail: 5 })).lines).toEqual(last.slice(-5));
    expect((await read(owner, { tail: 1 })).lines).toEqual(last.slice(-1));
    // 960 heartbeats, after the banner and the config line: fewer than 1,000, so every line.
    const all = (await read(owner, { tail: LOG_TAIL_MAX })).lines;
    expect(all.length).toBeGreaterThan(LOG_LINES);
    expect(all.length).toBeLessThanOrEqual(LOG_TAIL_MAX);
    expect(all[0]).toMatch(/ NodeHarbor simulated node starting \(run 1\)$/);
    expect(all[1]).toMatch(new RegExp(` config: key=${REDACTED}$`));
    expect(all.at(-1)).toMatch(new RegExp(`heartbeat ${all.length - 2}:`));
    const text = all.join('\n');
    for (const form of [KEY, Buffer.from(KEY).toString('base64').replace(/=+$/, ''), encodeURIComponent(KEY)]) expect(text).not.toContain(form);
  });

  it('with since, answers only the lines written at or after it, in any offset, and says when the tail may not reach back to it', async () => {
    await runningFor('3 hours');
    const last = (await read(owner, {})).lines;
    // At the third line from the end: it and the two after it (the page drops the one it has).
    const since = stamp(last.at(-3)!);
    expect(await read(owner, { since })).toEqual({ lines: last.slice(-3), gap: false });
    // The same instant two hours east of UTC.
    const east = new Date(new Date(since).getTime() + 2 * 3_600_000).toISOString().replace('Z', '+02:00');
    expect(await read(owner, { since: east })).toEqual({ lines: last.slice(-3), gap: false });
    // Nothing yet after the newest line's next millisecond, nor in the future.
    expect(await read(owner, { since: new Date(new Date(stamp(last.at(-1)!)).getTime() + 1).toISOString() })).toEqual({ lines: [], gap: false });
    expect(await read(owner, { since: '2999-01-01T00:00:00Z' })).toEqual({ lines: [], gap: false });
    // Since the first heartbeat, 10 lines do not reach back to it: the dialog says some are missing.
    const first = (await read(owner, { tail: LOG_TAIL_MAX })).lines.find((l) => / heartbeat 1:/.test(l))!;
    const r = await read(owner, { since: stamp(first), tail: 10 });
    expect(r).toEqual({ lines: last.slice(-10), gap: true });
    // Since before the node started: every line, and the tail reaches the banner.
    expect((await read(owner, { since: '2000-01-01T00:00:00Z', tail: LOG_TAIL_MAX })).gap).toBe(false);
  });

  it('grows as the node prints: a follow from the last line gets the line printed after it', async () => {
    // The next heartbeat is a second away.
    await s.deps.db.query(`update nodeharbor.simulated_nodes set started_at = now() - interval '1 hour' - interval '29 seconds' where service_id = $1`, [
      consoleId,
    ]);
    const before = (await read(owner, {})).lines;
    expect(before.at(-1)).toMatch(/heartbeat 120:/);
    const since = stamp(before.at(-1)!);
    const r = await until(
      'the next heartbeat',
      async () => {
        const answer = await read(owner, { since });
        return answer.lines.length > 1 && answer;
      },
      10_000,
      100,
    );
    // The line it has, which the page drops, and the new one.
    expect(r).toEqual({ lines: [before.at(-1), expect.stringMatching(/ heartbeat 121: synced, 8 peers$/)], gap: false });
  });

  it('refuses a tail or since out of range with a clear message, and records nothing for it', async () => {
    const bad: [Record<string, unknown>, string][] = [
      ...[0, -1, -1000, 1.5, LOG_TAIL_MAX + 1, 1e12, Number.MAX_SAFE_INTEGER + 2, '200', null, true, [200], { n: 1 }].map(
        (tail) => [{ tail }, nodeLogsMessages.tail] as [Record<string, unknown>, string],
      ),
      ...[
        'yesterday',
        '',
        '2026-02-30T00:00:00Z',
        '2026-01-31 09:30:00Z',
        '2026-01-31T09:30:00',
        1_700_000_000,
        null,
        ['2026-01-31T09:30:00Z'],
        `2026-01-31T09:30:00Z${'0'.repeat(100_000)}`,
      ].map((since) => [{ since }, nodeLogsMessages.since] as [Record<string, unknown>, string]),
    ];
    const events = async () =>
      (await s.deps.db.query(`select count(*)::int as n from public.service_events where service_id = $1 and event = 'logs_read'`, [consoleId])).rows[0] as {
        n: number;
      };
    const had = await events();
    for (const [extra, error] of bad) {
      expect(await logs(admin, { service_id: consoleId, ...extra }), JSON.stringify(extra).slice(0, 80)).toEqual({ status: 400, body: { error } });
    }
    // An admin's refused read is no read: the owner's log has no new line.
    expect(await events()).toEqual(had);
  });

  it('tells another user nothing of a service that is not theirs, whatever the tail or since', async () => {
    for (const extra of [{ tail: LOG_TAIL_MAX }, { since: '2000-01-01T00:00:00Z' }, { tail: 1, since: '2000-01-01T00:00:00Z' }]) {
      const theirs = await logs(stranger, { service_id: consoleId, ...extra });
      expect(theirs).toEqual({ status: 404, body: { error: 'Service not found' } });
      expect(await logs(stranger, { service_id: '00000000-0000-4000-8000-0000000000ff', ...extra })).toEqual(theirs);
    }
  });

  it(`records an admin's reading once per ${LOG_FOLLOW_MINUTES} minutes, however often a follow reads`, async () => {
    const { data } = await owner.client.rpc('create_service_securely', {
      p_name: 'watched',
      p_description: null,
      p_api_key: GALA_KEY,
      p_product_id: TOWN_STAR,
    });
    const id = (data as { id: string }).id;
    await installNode(deps, id);
    const reads = async () => (await owner.client.from('service_events').select('event, detail').eq('service_id', id).eq('event', 'logs_read')).data;
    expect((await logs(admin, { service_id: id })).status).toBe(200);
    for (let i = 0; i < 5; i++) expect((await logs(admin, { service_id: id, since: '2000-01-01T00:00:00Z' })).status).toBe(200);
    expect((await logs(admin, { service_id: id, tail: LOG_TAIL_MAX })).status).toBe(200);
    expect(await reads()).toEqual([{ event: 'logs_read', detail: { by: 'admin' } }]);
    // The owner's own reads are not told to them.
    expect((await logs(owner, { service_id: id })).status).toBe(200);
    // Past the window, the next read is a new reading.
    await s.deps.db.query(
      `update public.service_events set created_at = created_at - make_interval(mins => $2 + 1) where service_id = $1 and event = 'logs_read'`,
      [id, LOG_FOLLOW_MINUTES],
    );
    expect((await logs(admin, { service_id: id, since: '2000-01-01T00:00:00Z' })).status).toBe(200);
    expect(await reads()).toHaveLength(2);
  });
});

describe('node-logs, limited and with the engine away', () => {
  let limited: TestServer;
  beforeAll(async () => {
    // An engine that refuses connections at once: a Docker host nobody listens on.
    limited = await startTestServer({ PROVISIONER: 'docker', DOCKER_HOST: 'tcp://127.0.0.1:1' });
  });
  afterAll(() => limited.stop());

  it('answers 502 with a message when the engine cannot be asked, and 429 past 30 reads a minute', async () => {
    const user = await createTestUser(limited, { credits: 50 });
    const { data } = await user.client.rpc('create_service_securely', { p_name: 'away', p_description: null, p_api_key: GALA_KEY, p_product_id: TOWN_STAR });
    const body = { service_id: (data as { id: string }).id };
    expect(await invokeFunction(user.client, 'node-logs', body)).toEqual({
      status: 502,
      body: { error: nodeLogsMessages.unreadable },
    });
    for (let i = 1; i < 30; i++) await invokeFunction(user.client, 'node-logs', body);
    const r = await invokeFunction(user.client, 'node-logs', body);
    expect(r.status).toBe(429);
    expect(r.body.error).toMatch(/^Too many log requests\. Please try again in \d+ seconds\.$/);
  });

  /** A user of the limited server with a service: its reads all answer 502 until they are refused. */
  async function limitedService() {
    const user = await createTestUser(limited, { credits: 50 });
    const { data } = await user.client.rpc('create_service_securely', { p_name: 'away', p_description: null, p_api_key: GALA_KEY, p_product_id: TOWN_STAR });
    return { user, serviceId: (data as { id: string }).id };
  }

  it('lets a minute of following in two dialogs, with their first reads and a download, through', async () => {
    const { user, serviceId } = await limitedService();
    const reads = [
      { service_id: serviceId },
      { service_id: serviceId },
      { service_id: serviceId, tail: LOG_TAIL_MAX },
      ...Array.from({ length: 2 * (60 / LOG_FOLLOW_SECONDS) }, () => ({ service_id: serviceId, since: new Date().toISOString() })),
    ];
    for (const body of reads) expect((await invokeFunction(user.client, 'node-logs', body)).status).toBe(502);
  });

  it(`refuses a seventh download within a minute while shorter reads go on, and counts no refused body`, async () => {
    const { user, serviceId } = await limitedService();
    const download = { service_id: serviceId, tail: LOG_TAIL_MAX };
    for (let i = 0; i < 6; i++) expect((await invokeFunction(user.client, 'node-logs', download)).status).toBe(502);
    const r = await invokeFunction(user.client, 'node-logs', download);
    expect(r.status).toBe(429);
    expect(r.body.error).toMatch(/^Too many log downloads\. Please try again in \d+ seconds\.$/);
    expect((await invokeFunction(user.client, 'node-logs', { service_id: serviceId, tail: LOG_LINES })).status).toBe(502);
    // 8 reads counted so far; 40 refused bodies would pass the limit of 30 if they counted.
    for (let i = 0; i < 40; i++) expect((await invokeFunction(user.client, 'node-logs', { service_id: serviceId, tail: -1 })).status).toBe(400);
    expect((await invokeFunction(user.client, 'node-logs', { service_id: serviceId })).status).toBe(502);
  });
});
