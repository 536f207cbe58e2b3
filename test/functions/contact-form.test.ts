import type { FunctionsHttpError } from '@supabase/supabase-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { messages } from '../../src/shared/validation';
import { startTestServer, type TestServer } from '../helpers/server';

const valid = { name: 'Ada Lovelace', email: 'ada@example.com', topic: 'sales', message: 'I would like to host ten nodes.', honeypot: '' };

async function invoke(s: TestServer, body: unknown) {
  const { data, error } = await s.client().functions.invoke('contact-form', { body: body as Record<string, unknown> });
  if (!error) return { status: 200, body: data as Record<string, unknown> };
  const res = (error as FunctionsHttpError).context as Response;
  return { status: res.status, body: (await res.json()) as Record<string, unknown>, retryAfter: res.headers.get('retry-after') };
}

async function stored(s: TestServer) {
  return (await s.deps.db.query<{ n: number }>('select count(*)::int as n from public.contact_messages')).rows[0]!.n;
}

describe('contact-form', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer({ RATE_LIMITS_ENABLED: 'false', CONTACT_TO: 'support@nodeharbor.test' });
  });
  afterAll(() => s.stop());

  it('stores a valid message and e-mails a copy to CONTACT_TO', async () => {
    expect(await invoke(s, valid)).toEqual({ status: 200, body: { success: true } });
    const { rows } = await s.deps.db.query('select name, email, topic, message from public.contact_messages');
    expect(rows).toEqual([{ name: valid.name, email: valid.email, topic: 'sales', message: valid.message }]);
    const { rows: mail } = await s.deps.db.query<{ to_address: string; subject: string; text_body: string }>(
      'select to_address, subject, text_body from nodeharbor.outbox order by id desc limit 1',
    );
    expect(mail[0]).toMatchObject({ to_address: 'support@nodeharbor.test', subject: 'Contact form: sales' });
    expect(mail[0]!.text_body).toContain('From: Ada Lovelace <ada@example.com>');
    expect(mail[0]!.text_body).toContain(valid.message);
  });

  it('escapes the sender’s text in the HTML copy, keeping the message’s lines', async () => {
    expect((await invoke(s, { ...valid, name: '<b>Ada</b>', message: '<script>alert(1)</script> hello\nsecond "line" & more' })).status).toBe(200);
    const { rows } = await s.deps.db.query<{ html_body: string }>('select html_body from nodeharbor.outbox order by id desc limit 1');
    expect(rows[0]!.html_body).toBe(
      '<p>From: &lt;b&gt;Ada&lt;/b&gt; &lt;ada@example.com&gt;<br>Topic: sales</p><p>&lt;script&gt;alert(1)&lt;/script&gt; hello<br>second &quot;line&quot; &amp; more</p>',
    );
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['name too short', { name: 'A' }, messages.contactNameShort],
    ['name too long', { name: 'A'.repeat(101) }, messages.contactNameLong],
    ['bad e-mail', { email: 'not-an-address' }, messages.email],
    ['no topic', { topic: '' }, messages.topic],
    ['unknown topic', { topic: 'billing' }, messages.topic],
    ['message too short', { message: 'Hi there' }, messages.contactMessageShort],
    ['message too long', { message: 'x'.repeat(1001) }, messages.contactMessageLong],
    ['honeypot filled', { honeypot: 'http://spam.example' }, messages.bot],
    ['honeypot filled with a number', { honeypot: 1 }, messages.bot],
    ['honeypot filled, other fields invalid too', { honeypot: 'x', email: 'nope' }, messages.bot],
    ['NUL character', { message: 'hello\u0000 world, long enough' }, 'The request must not contain NUL (\\u0000) characters'],
  ])('%s: 400 with the spec message, nothing stored', async (_, change, message) => {
    const before = await stored(s);
    const r = await invoke(s, { ...valid, ...change });
    expect(r.status).toBe(400);
    expect(r.body.error).toBe(message);
    expect(await stored(s)).toBe(before);
  });

  it('refuses a body that is not JSON', async () => {
    const r = await fetch(`${s.url}/functions/v1/contact-form`, {
      method: 'POST',
      headers: { apikey: s.anonKey, 'Content-Type': 'application/json' },
      body: '{"name":',
    });
    expect(r.status).toBe(400);
    // supabase-js hands error responses to the app, which reads them with .json().
    expect(r.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await r.json()).toEqual({ error: 'Invalid JSON body' });
  });

  it('reports every broken rule in issues, the first one as the error', async () => {
    const r = await invoke(s, { ...valid, name: 'A', message: 'short' });
    expect(r.status).toBe(400);
    expect(r.body).toEqual({
      error: messages.contactNameShort,
      issues: [
        { path: 'name', message: messages.contactNameShort },
        { path: 'message', message: messages.contactMessageShort },
      ],
    });
  });

  it('needs the API key, and knows only its own functions', async () => {
    const noKey = await fetch(`${s.url}/functions/v1/contact-form`, { method: 'POST', body: JSON.stringify(valid) });
    expect(noKey.status).toBe(401);
    const r = await fetch(`${s.url}/functions/v1/nope`, { method: 'POST', headers: { apikey: s.anonKey } });
    expect(r.status).toBe(404);
    expect(await r.json()).toEqual({ error: 'Function not found' });
  });
});

describe('contact-form when the copy cannot be sent', () => {
  let s: TestServer;
  beforeAll(async () => {
    // Nothing listens on port 1: a real SMTP connection that is refused.
    s = await startTestServer({ RATE_LIMITS_ENABLED: 'false', CONTACT_TO: 'support@nodeharbor.test', SMTP_URL: 'smtp://127.0.0.1:1' });
  });
  afterAll(() => s.stop());

  it('still thanks the sender: the message is stored and the failed copy kept in the outbox', async () => {
    expect(await invoke(s, valid)).toEqual({ status: 200, body: { success: true } });
    expect(await stored(s)).toBe(1);
    const { rows } = await s.deps.db.query<{ status: string }>('select status from nodeharbor.outbox');
    expect(rows).toEqual([{ status: 'failed' }]);
  });
});

describe('contact-form rate limit', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer();
  });
  afterAll(() => s.stop());

  it('answers 429 with Retry-After on the sixth message in ten minutes', async () => {
    for (let i = 0; i < 5; i++) expect((await invoke(s, valid)).status).toBe(200);
    const r = await invoke(s, valid);
    expect(r.status).toBe(429);
    expect(r.body.error).toMatch(/^Too many messages\. Please try again in \d+ minutes\.$/);
    expect(Number(r.retryAfter)).toBeGreaterThan(0);
    expect(await stored(s)).toBe(5);
  });
});
