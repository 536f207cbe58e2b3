import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { JSON_TOO_DEEP, MAX_JSON_DEPTH } from '../../src/server/http/json-body';
import { startTestServer, type TestServer } from '../helpers/server';

const deep = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);

describe('bounded input to /functions/v1', () => {
  let s: TestServer;
  const post = (body: string) =>
    fetch(`${s.url}/functions/v1/contact-form`, {
      method: 'POST',
      headers: { apikey: s.anonKey, authorization: `Bearer ${s.anonKey}`, 'content-type': 'application/json' },
      body,
    });
  const stored = async () => (await s.deps.db.query<{ n: number }>('select count(*)::int as n from public.contact_messages')).rows[0]!.n;

  beforeAll(async () => {
    s = await startTestServer({ RATE_LIMITS_ENABLED: 'false' });
  });
  afterAll(() => s.stop());

  it('refuses a 10,000-deep body with 400 in the functions’ shape, and keeps answering', async () => {
    const r = await post(`{"name":"Ada","message":${deep(10_000)}}`);
    expect(r.status).toBe(400);
    expect(await r.json()).toEqual({ error: JSON_TOO_DEEP });
    expect(await stored()).toBe(0);
    expect((await fetch(`${s.url}/healthz`)).status).toBe(200);
  });

  it(`reads a body nested ${MAX_JSON_DEPTH} levels deep as JSON (the function then judges its fields)`, async () => {
    const r = await post(`{"name":${deep(MAX_JSON_DEPTH - 1)}}`);
    expect(r.status).toBe(400);
    expect(((await r.json()) as { error: string }).error).not.toBe(JSON_TOO_DEEP);
  });
});
