import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { REDACTED } from '../../src/shared/node-health';
import { prepareMachine } from '../../src/server/provisioning/machines/machine-tokens';
import { forceServiceState } from '../helpers/service-state';
import { startTestServer, type TestServer } from '../helpers/server';
import { createService, createTestUser, GALA_KEY, type TestUser } from '../helpers/users';

// The three functions a Town Star machine's agent calls (issue 35; docs/decisions/036), attacked
// as a stranger on the internet would: replayed, expired and guessed tokens, forged heartbeats,
// oversized and malformed reports, floods.

let s: TestServer;
let owner: TestUser;
let serviceId: string;

type Answer = { status: number; body: Record<string, unknown> };

async function call(name: string, body: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  const res = await fetch(`${s.url}/functions/v1/${name}`, {
    method: 'POST',
    headers: { apikey: s.anonKey, 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}
const bootstrap = (token: unknown) => call('node-bootstrap', { token });
const heartbeat = (agentToken: string, body: unknown) => call('node-heartbeat', body, { 'X-Agent-Token': agentToken });
const nodeKey = (agentToken: string) => call('node-key', {}, { 'X-Agent-Token': agentToken });

/** A claimed machine's agent token. */
async function claimed(id: string): Promise<string> {
  const r = await bootstrap(await prepareMachine(s.deps.db, id, 'hetzner'));
  expect(r.status).toBe(200);
  return r.body.agent_token as string;
}

const machine = async (id: string) =>
  (
    await s.deps.db.query<Record<string, unknown>>(
      'select agent_state, agent_status, agent_logs, agent_error, running_since, last_heartbeat_at, key_pending, commands from private.machines where service_id = $1',
      [id],
    )
  ).rows[0]!;

beforeAll(async () => {
  s = await startTestServer({ RATE_LIMITS_ENABLED: 'true' });
  await s.deps.db.query(
    `update public.products set node_driver = 'machine', machine_server_type = 'cx22', machine_image = 'debian-12',
            machine_locations = array['fsn1', 'nbg1'], machine_workload = 'townstar'
      where base_product_code = 'TOWNSTAR'`,
  );
  owner = await createTestUser(s, { credits: 100 });
  serviceId = await createService(owner, 'machine-1');
});
afterAll(() => s.stop());

describe('node-bootstrap', () => {
  it('hands the key and an agent token over once, and a replay gets what a guess gets', async () => {
    const token = await prepareMachine(s.deps.db, serviceId, 'hetzner');
    const r = await bootstrap(token);
    expect(r).toEqual({
      status: 200,
      body: {
        agent_token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
        api_key: GALA_KEY,
        workload: 'townstar',
        name: `nh-${serviceId.slice(0, 12)}`,
        heartbeat_seconds: 30,
      },
    });
    const refused = { status: 401, body: { error: 'This bootstrap token is not valid' } };
    expect(await bootstrap(token)).toEqual(refused);
    expect(await bootstrap('A'.repeat(43))).toEqual(refused);
    for (const bad of [undefined, 42, '', 'x'.repeat(44), `${token.slice(0, 42)}!`]) expect(await bootstrap(bad)).toEqual(refused);
    // The agent token is kept only as a hash.
    const { rows } = await s.deps.db.query<{ t: string }>(`select m::text as t from private.machines m where service_id = $1`, [serviceId]);
    expect(rows[0]!.t).not.toContain(r.body.agent_token as string);
    expect(rows[0]!.t).not.toContain(token);
  });

  it('refuses a token past its hour, and one whose service is gone or failed', async () => {
    const late = await createService(owner, 'late-1');
    const token = await prepareMachine(s.deps.db, late, 'hetzner');
    await s.deps.db.query(`update private.machines set bootstrap_expires_at = now() - interval '1 second' where service_id = $1`, [late]);
    expect((await bootstrap(token)).status).toBe(401);
    for (const [i, state] of (['deleting', 'deleted', 'failed'] as const).entries()) {
      const id = await createService(owner, `gone-${i}`);
      const t = await prepareMachine(s.deps.db, id, 'hetzner');
      await forceServiceState(s.deps.db, state, 'id = $1', id);
      expect((await bootstrap(t)).status).toBe(401);
    }
  });

  it('shuts the old agent out when the server is made again', async () => {
    const id = await createService(owner, 'remade-1');
    const old = await claimed(id);
    await prepareMachine(s.deps.db, id, 'hetzner');
    expect((await heartbeat(old, { state: 'running' })).status).toBe(401);
  });
});

describe('node-boot-failed', () => {
  it("keeps the boot script's first reason, one line, for a token that may still be claimed, and refuses the rest", async () => {
    const id = await createService(owner, 'boot-fail-1');
    const token = await prepareMachine(s.deps.db, id, 'hetzner');
    const reason = (r: unknown, t: unknown = token) => call('node-boot-failed', { token: t, reason: r });
    for (const bad of [undefined, '', '  ', 'x'.repeat(501), 42]) expect((await reason(bad)).status).toBe(400);
    expect(await reason('EULA\nnot accepted')).toEqual({ status: 200, body: {} });
    expect(await reason('a second reason')).toEqual({ status: 200, body: {} });
    const { rows } = await s.deps.db.query<{ boot_error: string }>('select boot_error from private.machines where service_id = $1', [id]);
    expect(rows[0]!.boot_error).toBe('EULA not accepted');
    const refused = { status: 401, body: { error: 'This bootstrap token is not valid' } };
    expect(await reason('guess', 'A'.repeat(43))).toEqual(refused);
    expect(await reason('no token', null)).toEqual(refused);
    // Once claimed, the boot went on: nothing more to report with it.
    await bootstrap(token);
    expect(await reason('late')).toEqual(refused);
  });
});

describe('node-heartbeat', () => {
  let agent: string;
  let id: string;
  beforeEach(async () => {
    id = await createService(owner, `beat-${Math.random().toString(36).slice(2, 8)}`);
    agent = await claimed(id);
  });

  it('records the report with the key redacted wherever the agent put it, and keeps the run unbroken', async () => {
    const leak = `api key ${GALA_KEY} configured`;
    const r = await heartbeat(agent, { state: 'running', status: `Node: nh-1\n${leak}`, logs: ['started', leak], error: leak });
    expect(r).toEqual({ status: 200, body: { commands: [] } });
    const first = await machine(id);
    expect(first).toMatchObject({
      agent_state: 'running',
      agent_logs: ['started', `api key ${REDACTED} configured`],
      agent_error: `api key ${REDACTED} configured`,
    });
    expect(JSON.stringify(first)).not.toContain(GALA_KEY);
    await heartbeat(agent, { state: 'running' });
    expect((await machine(id)).running_since).toEqual(first.running_since);
    await heartbeat(agent, { state: 'stopped' });
    expect(await machine(id)).toMatchObject({ agent_state: 'stopped', running_since: null });
  });

  it('hands out what waits for the agent once: a new key, then commands', async () => {
    await s.deps.db.query(`update private.machines set key_pending = true, commands = array['restart'] where service_id = $1`, [id]);
    expect((await heartbeat(agent, { state: 'running' })).body).toEqual({ commands: ['new-key', 'restart'] });
    expect((await heartbeat(agent, { state: 'running' })).body).toEqual({ commands: ['new-key'] });
    expect(await nodeKey(agent)).toEqual({ status: 200, body: { api_key: GALA_KEY } });
    expect(await nodeKey(agent)).toEqual({ status: 409, body: { error: 'No new key is waiting' } });
    expect((await heartbeat(agent, { state: 'running' })).body).toEqual({ commands: [] });
  });

  it('refuses a forged, foreign or missing agent token, and reports from a deleted service', async () => {
    const refused = { status: 401, body: { error: 'This agent token is not valid' } };
    for (const headers of [{}, { 'X-Agent-Token': 'A'.repeat(43) }, { 'X-Agent-Token': `${agent}x` }, { 'X-Agent-Token': 'bad token' }] as Record<
      string,
      string
    >[]) {
      expect(await call('node-heartbeat', { state: 'running' }, headers)).toEqual(refused);
      expect(await call('node-key', {}, headers)).toEqual(refused);
    }
    // A user's own session is no agent token.
    expect((await owner.client.functions.invoke('node-heartbeat', { body: { state: 'running' } })).error).not.toBeNull();
    await forceServiceState(s.deps.db, 'deleted', 'id = $1', id);
    expect(await heartbeat(agent, { state: 'running' })).toEqual(refused);
  });

  it('refuses what is out of bounds, and changes nothing', async () => {
    const before = await machine(id);
    const cases: [unknown, number][] = [
      [{ state: 'hacked' }, 400],
      [{ state: 'running', status: 'x'.repeat(4097) }, 400],
      [{ state: 'running', logs: Array<string>(51).fill('x') }, 400],
      [{ state: 'running', logs: ['x'.repeat(501)] }, 400],
      [{ state: 'running', logs: 'not a list' }, 400],
      [{ state: 'refused', error: 'x'.repeat(501) }, 400],
      ['{not json', 400],
      [{ state: 'running', pad: 'x'.repeat(70_000) }, 413],
    ];
    for (const [body, status] of cases) expect((await heartbeat(agent, body)).status, JSON.stringify(body).slice(0, 60)).toBe(status);
    expect(await machine(id)).toEqual(before);
  });

  it('answers a flood from one machine with 429', async () => {
    const answers: number[] = [];
    for (let i = 0; i < 11; i++) answers.push((await heartbeat(agent, { state: 'running' })).status);
    expect(answers.slice(0, 10).every((st) => st === 200)).toBe(true);
    expect(answers[10]).toBe(429);
  });
});
