import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { LOG_LINES, REDACTED } from '../../src/shared/node-health';
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
      body: { error: "The node's logs could not be read. Please try again in a minute." },
    });
    for (let i = 1; i < 30; i++) await invokeFunction(user.client, 'node-logs', body);
    const r = await invokeFunction(user.client, 'node-logs', body);
    expect(r.status).toBe(429);
    expect(r.body.error).toMatch(/^Too many log requests\. Please try again in \d+ seconds\.$/);
  });
});
