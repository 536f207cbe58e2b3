import type { FunctionsHttpError } from '@supabase/supabase-js';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server';
import { createTestUser, GALA_KEY, TOWN_STAR, type TestUser } from '../helpers/users';
import { expectLedgerBalanced } from '../helpers/ledger';

let s: TestServer;
let owner: TestUser;
let serviceId: string;
beforeAll(async () => {
  s = await startTestServer({ RATE_LIMITS_ENABLED: 'false' });
  owner = await createTestUser(s, { credits: 10 });
  const { data } = await owner.client.rpc('create_service_securely', {
    p_name: 'mail-node',
    p_description: null,
    p_api_key: GALA_KEY,
    p_product_id: TOWN_STAR,
  });
  serviceId = (data as { id: string }).id;
});
// Money moves here: every balance stays its ledger's sum.
afterEach(() => expectLedgerBalanced(s.deps.db));
afterAll(() => s.stop());

async function invoke(u: { client: TestUser['client'] }, body: Record<string, unknown>) {
  const { error } = await u.client.functions.invoke('send-sqs-message', { body });
  if (!error) return { status: 200, body: null };
  const res = (error as FunctionsHttpError).context as Response;
  return { status: res.status, body: (await res.json()) as { error: string } };
}
async function lastMail() {
  return (
    await s.deps.db.query<{ to_address: string; subject: string; text_body: string }>(
      'select to_address, subject, text_body from nodeharbor.outbox order by id desc limit 1',
    )
  ).rows[0]!;
}
async function outboxSize() {
  return (await s.deps.db.query<{ n: number }>('select count(*)::int as n from nodeharbor.outbox')).rows[0]!.n;
}

it('mails the owner that the service is being set up, and never the userEmail of the body', async () => {
  const r = await invoke(owner, { serviceData: { id: serviceId, name: 'mail-node' }, userEmail: 'victim@elsewhere.test' });
  expect(r.status).toBe(200);
  const mail = await lastMail();
  expect(mail).toMatchObject({ to_address: owner.email, subject: 'Your service mail-node is being set up' });
  expect(mail.text_body).toContain('installing');
  expect(mail.text_body).toContain('about 10 minutes');
});

it('mails the deletion notice to the owner, whatever userEmail says', async () => {
  const r = await invoke(owner, { serviceData: { id: serviceId }, userEmail: 'victim@elsewhere.test', eventType: 'service_deleted' });
  expect(r.status).toBe(200);
  const mail = await lastMail();
  expect(mail).toMatchObject({ to_address: owner.email, subject: 'Your service mail-node has been deleted' });
  expect(mail.text_body).toContain('trash');
  expect(mail.text_body).toContain('Billing');
});

it('refuses a bad token, a malformed body and a malformed service id, sending nothing', async () => {
  const before = await outboxSize();
  const post = (body: string, token = owner.token) =>
    fetch(`${s.url}/functions/v1/send-sqs-message`, {
      method: 'POST',
      headers: { apikey: s.anonKey, authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body,
    }).then(async (r) => ({ status: r.status, body: (await r.json()) as unknown }));
  const body = JSON.stringify({ serviceData: { id: serviceId } });
  expect(await post(body, `${owner.token}x`)).toEqual({ status: 401, body: { error: 'Authentication required' } });
  expect(await post(body, s.serviceRoleKey)).toEqual({ status: 401, body: { error: 'Authentication required' } });
  expect(await post('{"serviceData":')).toEqual({ status: 400, body: { error: 'Invalid JSON body' } });
  expect(await post(JSON.stringify({ serviceData: { id: '-'.repeat(36) } }))).toEqual({ status: 400, body: { error: 'serviceData.id must be a UUID' } });
  expect(await outboxSize()).toBe(before);
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

it('queues the mail for the worker: the answer does not wait on a relay that refuses', async () => {
  // Nothing listens on port 1: a real SMTP connection that is refused, which the send-email job retries.
  const broken = await startTestServer({ RATE_LIMITS_ENABLED: 'false', SMTP_URL: 'smtp://127.0.0.1:1' });
  try {
    const u = await createTestUser(broken, { credits: 10 });
    const { data } = await u.client.rpc('create_service_securely', { p_name: 'quiet', p_description: null, p_api_key: GALA_KEY, p_product_id: TOWN_STAR });
    const { error } = await u.client.functions.invoke('send-sqs-message', { body: { serviceData: { id: (data as { id: string }).id } } });
    expect(error).toBeNull();
    const { rows } = await broken.deps.db.query<{ status: string; task: string; job_status: string }>(
      `select o.status, j.task, j.status as job_status from nodeharbor.outbox o
         join nodeharbor.jobs j on j.task = 'send-email' and (j.payload ->> 'outboxId')::bigint = o.id
        where o.to_address = $1`,
      [u.email],
    );
    expect(rows).toEqual([{ status: 'queued', task: 'send-email', job_status: 'pending' }]);
  } finally {
    await broken.stop();
  }
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
