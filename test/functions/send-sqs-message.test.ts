import type { FunctionsHttpError } from '@supabase/supabase-js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server';
import { createTestUser, GALA_KEY, TOWN_STAR, type TestUser } from '../helpers/users';

let s: TestServer;
let owner: TestUser;
let serviceId: string;
beforeAll(async () => {
  s = await startTestServer({ RATE_LIMITS_ENABLED: 'false' });
  owner = await createTestUser(s, { credits: 10 });
  const { data } = await owner.client.rpc('create_service_securely', { p_name: 'mail-node', p_description: null, p_api_key: GALA_KEY, p_product_id: TOWN_STAR });
  serviceId = (data as { id: string }).id;
});
afterAll(() => s.stop());

async function invoke(u: { client: TestUser['client'] }, body: Record<string, unknown>) {
  const { error } = await u.client.functions.invoke('send-sqs-message', { body });
  if (!error) return { status: 200, body: null };
  const res = (error as FunctionsHttpError).context as Response;
  return { status: res.status, body: (await res.json()) as { error: string } };
}
async function lastMail() {
  return (await s.deps.db.query<{ to_address: string; subject: string }>('select to_address, subject from nodeharbor.outbox order by id desc limit 1')).rows[0];
}

it('mails the owner that the service is being set up, and never the userEmail of the body', async () => {
  const r = await invoke(owner, { serviceData: { id: serviceId, name: 'mail-node' }, userEmail: 'victim@elsewhere.test' });
  expect(r.status).toBe(200);
  expect(await lastMail()).toEqual({ to_address: owner.email, subject: 'Your service mail-node is being set up' });
});

it('mails the deletion notice', async () => {
  const r = await invoke(owner, { serviceData: { id: serviceId }, userEmail: owner.email, eventType: 'service_deleted' });
  expect(r.status).toBe(200);
  expect(await lastMail()).toEqual({ to_address: owner.email, subject: 'Your service mail-node has been deleted' });
});

it('refuses anonymous callers, other users’ services, and unknown events', async () => {
  const before = (await s.deps.db.query<{ n: number }>('select count(*)::int as n from nodeharbor.outbox')).rows[0]!.n;
  expect(await invoke({ client: s.client() }, { serviceData: { id: serviceId } })).toEqual({ status: 401, body: { error: 'Authentication required' } });
  const stranger = await createTestUser(s);
  expect(await invoke(stranger, { serviceData: { id: serviceId } })).toEqual({ status: 404, body: { error: 'Service not found' } });
  expect((await invoke(owner, { serviceData: { id: serviceId }, eventType: 'service_exploded' })).status).toBe(400);
  expect((await invoke(owner, { serviceData: {} })).body).toEqual({ error: 'serviceData.id is required' });
  expect((await s.deps.db.query<{ n: number }>('select count(*)::int as n from nodeharbor.outbox')).rows[0]!.n).toBe(before);
});

it('limits the notifications of one user', async () => {
  const limited = await startTestServer();
  try {
    const u = await createTestUser(limited, { credits: 10 });
    const { data } = await u.client.rpc('create_service_securely', { p_name: 'chatty', p_description: null, p_api_key: GALA_KEY, p_product_id: TOWN_STAR });
    const id = (data as { id: string }).id;
    const send = async () => {
      const { error } = await u.client.functions.invoke('send-sqs-message', { body: { serviceData: { id } } });
      if (!error) return { status: 200 };
      const res = (error as FunctionsHttpError).context as Response;
      return { status: res.status, retryAfter: res.headers.get('retry-after'), body: (await res.json()) as { error: string } };
    };
    for (let i = 0; i < 20; i++) expect((await send()).status).toBe(200);
    const refused = await send();
    expect(refused).toMatchObject({ status: 429, body: { error: expect.stringMatching(/^Too many notifications\. Please try again in \d+ minutes\.$/) } });
    expect(Number(refused.retryAfter)).toBeGreaterThan(0);
    const { rows } = await limited.deps.db.query<{ n: number }>('select count(*)::int as n from nodeharbor.outbox where to_address = $1', [u.email]);
    expect(rows[0]!.n).toBe(20);
  } finally {
    await limited.stop();
  }
});
