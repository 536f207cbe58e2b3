import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Balance } from '../../src/server/api/billing';
import { ServiceList } from '../../src/server/api/services';
import { invokeFunction } from '../helpers/functions';
import { startTestServer, type TestServer } from '../helpers/server';
import { createTestUser, type TestUser } from '../helpers/users';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(async () => {
  await s.stop();
});

async function tokenOf(user: TestUser, scopes: string[]): Promise<string> {
  const r = await invokeFunction(user.client, 'api-token', { name: 'CI', scopes });
  expect(r.status).toBe(200);
  return (r.body as { token: string }).token;
}

const get = (path: string, token?: string) => fetch(`${s.url}${path}`, { headers: token ? { authorization: `Bearer ${token}` } : {} });

describe('public API', () => {
  it('publishes a valid OpenAPI 3.1 document', async () => {
    const res = await get('/api/openapi.json');
    expect(res.status).toBe(200);
    const doc = (await res.json()) as Record<string, unknown>;
    const v = new Validator();
    const result = await v.validate(doc);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    const op = (doc.paths as Record<string, Record<string, Record<string, unknown>>>)['/services']!.get!;
    expect(op['x-required-scope']).toBe('services:read');
    expect(op['x-codeSamples']).toHaveLength(2);
  });

  it('lists services and reads the balance with the right scopes, and refuses the others', async () => {
    const user = await createTestUser(s);
    const services = await tokenOf(user, ['services:read']);
    const billing = await tokenOf(user, ['billing:read']);
    const list = await get('/api/v1/services', services);
    expect(list.status).toBe(200);
    ServiceList.parse(await list.json());
    const bal = await get('/api/v1/balance', billing);
    expect(bal.status).toBe(200);
    Balance.parse(await bal.json());
    expect((await get('/api/v1/services', billing)).status).toBe(403);
    expect((await get('/api/v1/balance')).status).toBe(401);
    const bad = await get('/api/v1/services/not-a-uuid', services);
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ code: 'invalid_request' });
    const missing = await get('/api/v1/services/00000000-0000-4000-8000-000000000000', services);
    expect(missing.status).toBe(404);
  });
});
