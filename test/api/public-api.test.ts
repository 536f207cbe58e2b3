import { getRequestListener } from '@hono/node-server';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { API_SCOPES } from '../../src/shared/api-tokens';
import { nodeLogsMessages } from '../../src/shared/node-logs';
import { messages } from '../../src/shared/validation';
import { apiRoutes } from '../../src/server/api/api.routes';
import { addCredits } from '../../src/server/domain/credits';
import { createJobDeps } from '../../src/server/jobs/app-worker';
import { installNode } from '../../src/server/provisioning/install-node';
import { LOG_READ_LIMIT } from '../../src/server/provisioning/read-node-logs';
import { invokeFunction } from '../helpers/functions';
import { expectLedgerBalanced } from '../helpers/ledger';
import { startTestServer, type TestServer } from '../helpers/server';
import { createTestUser, GALA_KEY, TOWN_STAR, type TestUser } from '../helpers/users';

// The public API (issue 37, item 5; decision 047): every operation the document describes, called
// with a real token against the real server, answers as the document says; the database's rules
// and the token's scopes hold.

let s: TestServer;
let doc: OpenApiDoc;
const extra: Server[] = [];

type Operation = { summary: string; responses: Record<string, { content?: Record<string, { schema: unknown }> }>; 'x-required-scope': string };
type OpenApiDoc = { paths: Record<string, Record<string, Operation>> };

beforeAll(async () => {
  s = await startTestServer({ RATE_LIMITS_ENABLED: 'false', PROVISION_INSTALL_SECONDS: '0', INSTALL_SETTLE_SECONDS: '0' });
  doc = (await (await fetch(`${s.url}/api/openapi.json`)).json()) as OpenApiDoc;
});
afterEach(() => expectLedgerBalanced(s.deps.db));
afterAll(async () => {
  await Promise.all(extra.map((a) => new Promise((r) => a.close(r))));
  await s.stop();
});

async function tokenOf(user: TestUser, scopes: readonly string[] = API_SCOPES): Promise<string> {
  const r = await invokeFunction(user.client, 'api-token', { name: 'CI', scopes });
  expect(r.status).toBe(200);
  return (r.body as { token: string }).token;
}

type Answer = { status: number; body: Record<string, unknown>; headers: Headers };
async function call(method: string, path: string, token: string | undefined, body?: unknown, base = s.url): Promise<Answer> {
  const res = await fetch(`${base}/api/v1${path}`, {
    method,
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown>, headers: res.headers };
}

/** The document's own schemas, as JSON Schema 2020-12 (OpenAPI 3.1's Schema Object), to check answers against. */
function schemaChecker(d: OpenApiDoc) {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);
  ajv.addSchema({ ...d, $id: 'https://nodeharbor.test/openapi.json' });
  return (path: string, method: string, status: number, body: unknown): string[] => {
    const op = d.paths[path]?.[method];
    if (!op?.responses[String(status)]) return [`${method.toUpperCase()} ${path} does not document ${status}`];
    const pointer = ['paths', path, method, 'responses', String(status), 'content', 'application/json', 'schema']
      .map((p) => p.replaceAll('~', '~0').replaceAll('/', '~1'))
      .join('/');
    const validate = ajv.compile({ $ref: `https://nodeharbor.test/openapi.json#/${pointer}` });
    return validate(body) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
  };
}

const services = async (user: TestUser) =>
  (await s.deps.db.query<{ id: string; name: string; state: string }>(`select id, name, state::text from private.services where user_id = $1`, [user.id])).rows;
const balanceOf = async (user: TestUser) =>
  Number((await s.deps.db.query<{ balance: string }>(`select balance::text from public.user_credits where user_id = $1`, [user.id])).rows[0]?.balance ?? 0);

describe('the OpenAPI document', () => {
  it('validates as OpenAPI 3.1, and names the scope and curl and JavaScript samples of every operation', async () => {
    const result = await new Validator().validate(doc as never);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        expect(API_SCOPES, `${method} ${path}`).toContain(op['x-required-scope']);
        expect(op.summary, `${method} ${path}`).toMatch(/^[A-Z]/);
        const samples = (op as unknown as { 'x-codeSamples': { lang: string; source: string }[] })['x-codeSamples'];
        expect(samples.map((x) => x.lang)).toEqual(['curl', 'JavaScript']);
        const withBody = 'requestBody' in op;
        expect(samples[0]!.source.includes(' -d '), `${method} ${path}`).toBe(withBody);
      }
    }
  });

  it('matches the live server: every documented operation, called with a real token, answers as documented', async () => {
    const check = schemaChecker(doc);
    const user = await createTestUser(s, { credits: 50 });
    const token = await tokenOf(user);
    const deps = await createJobDeps(s.deps);
    let id = '';
    // In the order a script would: create, read, change, watch, delete. Each documented operation
    // is here, and nothing else: a new one must be added to this walk.
    const walk: [string, string, () => Promise<Answer>][] = [
      ['post', '/services', () => call('POST', '/services', token, { name: 'api-node', product_id: TOWN_STAR, api_key: GALA_KEY })],
      ['get', '/services', () => call('GET', '/services', token)],
      ['get', '/services/{id}', () => call('GET', `/services/${id}`, token)],
      ['patch', '/services/{id}', () => call('PATCH', `/services/${id}`, token, { name: 'api-node-2', description: 'From a script' })],
      ['post', '/services/{id}/extend', () => call('POST', `/services/${id}/extend`, token, { product_id: TOWN_STAR, months: 1 })],
      ['post', '/services/{id}/power', () => call('POST', `/services/${id}/power`, token, { action: 'restart' })],
      ['get', '/services/{id}/logs', () => call('GET', `/services/${id}/logs?tail=20`, token)],
      ['get', '/services/{id}/uptime', () => call('GET', `/services/${id}/uptime?days=7`, token)],
      ['get', '/balance', () => call('GET', '/balance', token)],
      ['get', '/ledger', () => call('GET', '/ledger?limit=10', token)],
      ['delete', '/services/{id}', () => call('DELETE', `/services/${id}`, token)],
    ];
    const documented = Object.entries(doc.paths).flatMap(([path, item]) => Object.keys(item).map((m) => `${m} ${path}`));
    expect(walk.map(([m, p]) => `${m} ${p}`).sort()).toEqual(documented.sort());
    for (const [method, path, send] of walk) {
      const r = await send();
      expect(r.status, `${method} ${path}: ${JSON.stringify(r.body)}`).toBeLessThan(300);
      expect(check(path, method, r.status, r.body), `${method} ${path}`).toEqual([]);
      if (method === 'post' && path === '/services') {
        id = r.body.id as string;
        await installNode(deps, id);
      }
    }
    expect(await services(user)).toEqual([{ id, name: 'api-node-2', state: 'deleting' }]);
    expect(await balanceOf(user)).toBe(30);
  });

  it('answers every refusal in the documented Error shape, with a status the operation documents', async () => {
    const check = schemaChecker(doc);
    const user = await createTestUser(s, { credits: 5 });
    const other = await createTestUser(s, { credits: 50 });
    const theirs = (await call('POST', '/services', await tokenOf(other), { name: 'theirs', product_id: TOWN_STAR, api_key: GALA_KEY })).body.id as string;
    const token = await tokenOf(user);
    const reader = await tokenOf(user, ['services:read']);
    const refusals: [string, string, Answer, number, string][] = [
      [
        'post',
        '/services',
        await call('POST', '/services', token, { name: 'poor', product_id: TOWN_STAR, api_key: GALA_KEY }),
        400,
        messages.insufficientFunds,
      ],
      [
        'post',
        '/services',
        await call('POST', '/services', token, { name: 'bad@name', product_id: TOWN_STAR, api_key: GALA_KEY }),
        400,
        messages.serviceNameChars,
      ],
      [
        'post',
        '/services',
        await call('POST', '/services', reader, { name: 'nope', product_id: TOWN_STAR, api_key: GALA_KEY }),
        403,
        'This API token lacks the services:write scope',
      ],
      ['get', '/services/{id}', await call('GET', `/services/${theirs}`, token), 404, messages.serviceNotFound],
      ['patch', '/services/{id}', await call('PATCH', `/services/${theirs}`, token, { name: 'mine' }), 404, messages.serviceNotFound],
      [
        'post',
        '/services/{id}/extend',
        await call('POST', `/services/${theirs}/extend`, token, { product_id: TOWN_STAR, months: 1 }),
        404,
        messages.serviceNotFound,
      ],
      ['post', '/services/{id}/power', await call('POST', `/services/${theirs}/power`, token, { action: 'stop' }), 404, messages.serviceNotFound],
      ['delete', '/services/{id}', await call('DELETE', `/services/${theirs}`, token), 404, messages.serviceNotFound],
      ['get', '/services/{id}/logs', await call('GET', `/services/${theirs}/logs`, token), 404, messages.serviceNotFound],
      ['get', '/services/{id}/uptime', await call('GET', `/services/${theirs}/uptime`, token), 404, messages.serviceNotFound],
      ['get', '/ledger', await call('GET', '/ledger?cursor=bm90LW91cnM', token), 400, 'cursor: not one this API gave'],
    ];
    for (const [method, path, r, status, message] of refusals) {
      expect({ status: r.status, message: r.body.message }, `${method} ${path}`).toEqual({ status, message });
      expect(check(path, method, r.status, r.body), `${method} ${path}`).toEqual([]);
    }
    // Nothing of the other user's changed, and nothing of this one's was made or charged.
    expect(await services(other)).toEqual([{ id: theirs, name: 'theirs', state: 'installing' }]);
    expect(await services(user)).toEqual([]);
    expect(await balanceOf(user)).toBe(5);
  });
});

describe('the public API', () => {
  let user: TestUser;
  let token: string;
  beforeAll(async () => {
    user = await createTestUser(s, { credits: 50 });
    token = await tokenOf(user);
  });

  it('refuses bad input with the field and the rule, before the database is asked', async () => {
    const cases: [string, string, unknown, RegExp][] = [
      ['POST', '/services', { name: 'x', product_id: 'not-a-uuid', api_key: GALA_KEY }, /^product_id: /],
      ['POST', '/services', { name: 'x', product_id: TOWN_STAR }, /^api_key: /],
      ['POST', '/services', { name: 'x'.repeat(65), product_id: TOWN_STAR, api_key: GALA_KEY }, /^name: /],
      ['POST', '/services', { name: 'nul\u0000', product_id: TOWN_STAR, api_key: GALA_KEY }, /^name: must not contain NUL characters$/],
      ['PATCH', `/services/${TOWN_STAR}`, {}, /Send at least one of name, description and api_key/],
      ['POST', `/services/${TOWN_STAR}/power`, { action: 'explode' }, /^action: /],
      ['POST', `/services/${TOWN_STAR}/extend`, { product_id: TOWN_STAR, months: 0 }, /^months: /],
      ['GET', '/ledger?limit=201', undefined, /^limit: /],
      ['GET', `/services/${TOWN_STAR}/logs?tail=0`, undefined, /^tail: /],
      ['POST', '/services', '{"name":', /JSON/i],
    ];
    for (const [method, path, body, message] of cases) {
      const r = await call(method, path, token, body);
      expect(r.status, `${method} ${path} ${JSON.stringify(r.body)}`).toBe(400);
      expect(r.body.code).toBe('invalid_request');
      expect(r.body.message).toMatch(message);
    }
    expect(await services(user)).toEqual([]);
  });

  it('keeps the rules of the dashboard: a name taken, a node installing, are refused in their words and charge nothing', async () => {
    const made = await call('POST', '/services', token, { name: 'rules', product_id: TOWN_STAR, api_key: GALA_KEY });
    expect(made.status).toBe(201);
    expect(made.body).toMatchObject({ name: 'rules', state: 'installing', charged: 10, reused: false });
    expect(JSON.stringify(made.body)).not.toContain(GALA_KEY);
    const again = await call('POST', '/services', token, { name: 'RULES', product_id: TOWN_STAR, api_key: GALA_KEY });
    expect({ status: again.status, message: again.body.message }).toEqual({ status: 400, message: messages.serviceNameTaken });
    const power = await call('POST', `/services/${made.body.id as string}/power`, token, { action: 'stop' });
    expect({ status: power.status, code: power.body.code, message: power.body.message }).toEqual({
      status: 409,
      code: 'conflict',
      message: 'The node is still being installed',
    });
    expect(await balanceOf(user)).toBe(40);
  });

  it("reads the logs with the key redacted, counted with the dashboard's reads", async () => {
    const deps = await createJobDeps(s.deps);
    const key = `Ab+/${'C'.repeat(40)}=`;
    const made = await call('POST', '/services', token, { name: 'logged', product_id: TOWN_STAR, api_key: key });
    const id = made.body.id as string;
    await installNode(deps, id);
    const r = await call('GET', `/services/${id}/logs`, token);
    expect(r.status).toBe(200);
    expect((r.body.lines as string[]).length).toBeGreaterThan(0);
    expect(JSON.stringify(r.body)).not.toContain(key);

    // The same routes with the server's limits on: the per-user limit of log reads is shared.
    const app = createServer(getRequestListener(apiRoutes({ ...s.deps, config: { ...s.deps.config, rateLimitsEnabled: true } }).fetch));
    await new Promise<void>((done) => app.listen(0, '127.0.0.1', done));
    extra.push(app);
    const limited = `http://127.0.0.1:${(app.address() as AddressInfo).port}`;
    const readLogs = () => fetch(`${limited}/v1/services/${id}/logs?tail=1`, { headers: { authorization: `Bearer ${token}` } });
    for (let i = 0; i < LOG_READ_LIMIT.max; i++) expect((await readLogs()).status).toBe(200);
    const over = await readLogs();
    expect(over.status).toBe(429);
    const wait = Number(over.headers.get('retry-after'));
    expect(wait).toBeGreaterThan(0);
    expect(await over.json()).toEqual({ code: 'rate_limited', message: nodeLogsMessages.tooManyReads(wait) });
  });

  it('pages the ledger newest first, every row once, whatever the page size', async () => {
    const reader = await createTestUser(s);
    for (let i = 1; i <= 7; i++) await addCredits(s.deps.db, reader.id, i, `Credit ${i}`);
    const t = await tokenOf(reader, ['billing:read']);
    const seen: { description: string; amount: number }[] = [];
    let cursor: string | null = null;
    do {
      const page: Answer = await call('GET', `/ledger?limit=3${cursor ? `&cursor=${cursor}` : ''}`, t);
      expect(page.status).toBe(200);
      seen.push(...(page.body.transactions as { description: string; amount: number }[]));
      cursor = page.body.next_cursor as string | null;
    } while (cursor);
    expect(seen.map((x) => x.amount)).toEqual([7, 6, 5, 4, 3, 2, 1]);
    expect((await call('GET', '/balance', t)).body).toEqual({ balance: 28 });
  });
});
