import { createHash, randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_TOKEN_PATTERN, API_TOKEN_REQUESTS_PER_MINUTE, MAX_ALLOWED_IPS, MAX_API_TOKENS, apiTokenMessages } from '../../src/shared/api-tokens';
import { messages } from '../../src/shared/validation';
import { apiTokenAuth, asTokenOwner, generateApiToken, isWellFormedApiToken, requireScope } from '../../src/server/api/token-auth';
import type { Database, Queryable } from '../../src/server/db/database';
import type { AppDeps } from '../../src/server/deps';
import { withClaims } from '../../src/server/db/with-claims';
import { invokeFunction } from '../helpers/functions';
import { signInAal1, verifyNewFactor } from '../helpers/mfa';
import { startTestServer, type TestServer } from '../helpers/server';
import { createTestUser, type TestUser } from '../helpers/users';

const logLines: string[] = [];
let s: TestServer;
/** Reads of the database by the middleware of the test app, to show what it refuses without one. */
let reads = 0;
const apps: Server[] = [];

/** A tiny API of our own behind the middleware, served over HTTP so that the client's address is real. */
async function serveTestApi(deps: Pick<AppDeps, 'db' | 'logger' | 'config'>): Promise<string> {
  const app = new Hono();
  app.use('/api/*', apiTokenAuth(deps));
  app.get('/api/whoami', requireScope('billing:read'), async (c) => {
    const row = await asTokenOwner(
      deps,
      c,
      async (tx) => (await tx.query<{ uid: string; balance: string }>('select auth.uid() as uid, balance from public.user_credits')).rows[0],
      { readOnly: true },
    );
    return c.json({ caller: c.get('apiCaller'), row });
  });
  const server = createServer(getRequestListener(app.fetch));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  apps.push(server);
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

let api: string;
let behindProxy: string;
let limited: string;

beforeAll(async () => {
  s = await startTestServer({ RATE_LIMITS_ENABLED: 'false' }, { logLines });
  const db = s.deps.db;
  const counting: Database = Object.assign(Object.create(db) as Database, {
    query: (...args: Parameters<Database['query']>) => {
      reads++;
      return db.query(...args);
    },
  });
  api = await serveTestApi({ ...s.deps, db: counting });
  behindProxy = await serveTestApi({ ...s.deps, config: { ...s.deps.config, trustProxy: { hops: 1 } } });
  limited = await serveTestApi({ ...s.deps, config: { ...s.deps.config, rateLimitsEnabled: true } });
});
afterAll(async () => {
  await Promise.all(apps.map((a) => new Promise((r) => a.close(r))));
  await s.stop();
});

type Made = { status: number; body: Record<string, unknown> };
const create = (client: TestUser['client'], body: Record<string, unknown>): Promise<Made> =>
  invokeFunction(client, 'api-token', { name: 'CI', scopes: ['billing:read'], ...body });

async function tokenOf(user: TestUser, body: Record<string, unknown> = {}): Promise<{ id: string; token: string }> {
  const r = await create(user.client, body);
  expect(r.status).toBe(200);
  return r.body as { id: string; token: string };
}

const call = (base: string, token: string | undefined, headers: Record<string, string> = {}) =>
  fetch(`${base}/api/whoami`, { headers: { ...(token === undefined ? {} : { authorization: `Bearer ${token}` }), ...headers } });

async function expectRefused(res: Response, status: number, code: string, message: string) {
  expect({ status: res.status, body: await res.json() }).toEqual({ status, body: { code, message } });
}

describe('creating a token', () => {
  it('answers the secret once and keeps only its SHA-256 and its first 12 characters', async () => {
    const user = await createTestUser(s);
    const r = await create(user.client, {
      name: '  Deploy bot ',
      scopes: ['services:read', 'billing:read', 'services:read'],
      expiresInDays: 30,
      allowedIps: ['10.1.2.3/8', '2001:db8::1', '192.168.0.7'],
    });
    expect(r.status).toBe(200);
    const { id, token } = r.body as { id: string; token: string };
    expect(token).toMatch(API_TOKEN_PATTERN);
    expect(isWellFormedApiToken(token)).toBe(true);
    const stored = await s.deps.db.query<Record<string, unknown>>('select * from private.api_tokens where id = $1', [id]);
    expect(stored.rows[0]).toMatchObject({
      user_id: user.id,
      name: 'Deploy bot',
      prefix: token.slice(0, 12),
      token_hash: createHash('sha256').update(token).digest('hex'),
      scopes: ['billing:read', 'services:read'],
    });
    expect(JSON.stringify(stored.rows[0])).not.toContain(token.slice(12));
    // The owner's list, through the REST API as the dashboard reads it: no hash.
    const list = await user.client.from('api_tokens').select('*');
    expect(list.error).toBeNull();
    expect(list.data).toHaveLength(1);
    const row = list.data![0] as Record<string, unknown>;
    expect(Object.keys(row).sort()).toEqual(['allowed_ips', 'created_at', 'expires_at', 'id', 'last_used_at', 'last_used_ip', 'name', 'prefix', 'scopes']);
    expect(row).toMatchObject({
      id,
      name: 'Deploy bot',
      prefix: token.slice(0, 12),
      allowed_ips: ['10.0.0.0/8', '2001:db8::1', '192.168.0.7'],
      last_used_at: null,
    });
    const days = (Date.parse(row.expires_at as string) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(29.9);
    expect(days).toBeLessThanOrEqual(30);
    // Another user sees none of it.
    const stranger = await createTestUser(s);
    expect((await stranger.client.from('api_tokens').select('*')).data).toEqual([]);
  });

  it('makes tokens that differ, each with a checksum a scanner can verify', () => {
    const tokens = new Set(Array.from({ length: 200 }, generateApiToken));
    expect(tokens.size).toBe(200);
    for (const t of tokens) expect(isWellFormedApiToken(t)).toBe(true);
    const one = [...tokens][0]!;
    const flipped = one.slice(0, -1) + (one.endsWith('A') ? 'B' : 'A');
    expect(isWellFormedApiToken(flipped)).toBe(false);
  });

  it('refuses a body that breaks the rules, with the shared words', async () => {
    const user = await createTestUser(s);
    const cases: [Record<string, unknown>, string][] = [
      [{ name: '   ' }, apiTokenMessages.nameRequired],
      [{ name: 'x'.repeat(61) }, apiTokenMessages.nameTooLong],
      [{ scopes: [] }, apiTokenMessages.scopesRequired],
      [{ scopes: ['admin'] }, apiTokenMessages.scopeUnknown],
      [{ expiresInDays: 10 }, apiTokenMessages.expiryInvalid],
      [{ allowedIps: ['10.1'] }, apiTokenMessages.allowedIpInvalid('10.1')],
      [{ allowedIps: ['1.2.3.4/33'] }, apiTokenMessages.allowedIpInvalid('1.2.3.4/33')],
      [{ allowedIps: ['example.com'] }, apiTokenMessages.allowedIpInvalid('example.com')],
      [{ allowedIps: ['fe80::1%eth0'] }, apiTokenMessages.allowedIpInvalid('fe80::1%eth0')],
      [{ allowedIps: Array.from({ length: MAX_ALLOWED_IPS + 1 }, (_, i) => `10.0.0.${i}`) }, apiTokenMessages.tooManyAllowedIps],
    ];
    for (const [body, error] of cases) {
      const r = await create(user.client, body);
      expect({ body, status: r.status, error: r.body.error }).toEqual({ body, status: 400, error });
    }
    expect((await user.client.from('api_tokens').select('id')).data).toEqual([]);
  });

  it(`holds at most ${MAX_API_TOKENS} live tokens a user; a revoked or expired one frees its place`, async () => {
    const user = await createTestUser(s);
    const ids: string[] = [];
    for (let i = 0; i < MAX_API_TOKENS; i++) ids.push((await tokenOf(user, { name: `t${i}` })).id);
    expect(await create(user.client, {})).toEqual({ status: 409, body: { error: apiTokenMessages.tooManyTokens } });
    expect((await user.client.rpc('revoke_api_token', { p_id: ids[0] })).error).toBeNull();
    await tokenOf(user);
    await s.deps.db.query(`update private.api_tokens set expires_at = now() - interval '1 second' where id = $1`, [ids[1]]);
    await tokenOf(user);
    expect((await create(user.client, {})).status).toBe(409);
  });

  it('refuses a visitor, and a session below the second factor its owner enrolled', async () => {
    expect(await invokeFunction(s.client(), 'api-token', { name: 'x', scopes: ['billing:read'] })).toEqual({
      status: 401,
      body: { error: messages.notAuthenticated },
    });
    const user = await createTestUser(s);
    await verifyNewFactor(user);
    const aal1 = await signInAal1(s, user);
    expect(await create(aal1, {})).toEqual({ status: 403, body: { error: messages.secondFactorRequired } });
    const { id } = await tokenOf(user);
    const revoked = await aal1.rpc('revoke_api_token', { p_id: id });
    expect(revoked.error).toMatchObject({ message: messages.secondFactorRequired });
    expect((await aal1.from('api_tokens').select('id')).data).toEqual([]);
    // Past the factor, the owner does both.
    expect((await user.client.from('api_tokens').select('id')).data).toEqual([{ id }]);
    expect((await user.client.rpc('revoke_api_token', { p_id: id })).error).toBeNull();
  });

  it('refuses in SQL, word for word, what the server refuses first', async () => {
    const user = await createTestUser(s);
    const asOwner = (args: unknown[]) =>
      withClaims(s.deps.db, { role: 'authenticated', claims: { sub: user.id, role: 'authenticated', aal: 'aal1' } }, (tx) =>
        tx.query('select private.create_api_token($1, $2, $3, $4::cidr[], $5, $6)', args),
      );
    const ok = ['x', ['billing:read'], null, [], 'nhp_aaaaaaaa', 'c'.repeat(64)];
    const cases: [number, unknown, string][] = [
      [0, ' ', apiTokenMessages.nameRequired],
      [0, 'x'.repeat(61), apiTokenMessages.nameTooLong],
      [1, [], apiTokenMessages.scopesRequired],
      [1, ['admin'], apiTokenMessages.scopeUnknown],
      [2, 10, apiTokenMessages.expiryInvalid],
      [3, Array.from({ length: MAX_ALLOWED_IPS + 1 }, (_, i) => `10.0.0.${i}`), apiTokenMessages.tooManyAllowedIps],
    ];
    for (const [at, value, message] of cases) {
      const args: unknown[] = [...ok];
      args[at] = value;
      await expect(asOwner(args)).rejects.toMatchObject({ message, code: '22023' });
    }
  });

  it('limits how many tokens one user makes an hour', async () => {
    const limited = await startTestServer({ RATE_LIMITS_ENABLED: 'true' });
    try {
      const user = await createTestUser(limited);
      await limited.deps.db.query(`insert into nodeharbor.rate_limits (key, window_start, count) values ($1, now(), 30)`, [`api-token:user:${user.id}`]);
      expect(await create(user.client, {})).toEqual({ status: 429, body: { error: apiTokenMessages.tooManyCreations(60) } });
    } finally {
      await limited.stop();
    }
  });

  it('cannot be reached through the REST API: creation is in a schema PostgREST does not expose', async () => {
    const user = await createTestUser(s);
    const r = await user.client.rpc('create_api_token', {
      p_name: 'x',
      p_scopes: ['billing:read'],
      p_expires_in_days: null,
      p_allowed_ips: [],
      p_prefix: 'nhp_aaaaaaaa',
      p_token_hash: 'a'.repeat(64),
    });
    expect(r.error).not.toBeNull();
    expect((await s.deps.db.query('select 1 from private.api_tokens where user_id = $1', [user.id])).rowCount).toBe(0);
  });
});

describe('revoking a token', () => {
  it("answers another user's token as it answers one that never was", async () => {
    const owner = await createTestUser(s);
    const stranger = await createTestUser(s);
    const { id, token } = await tokenOf(owner);
    const theirs = await stranger.client.rpc('revoke_api_token', { p_id: id });
    const none = await stranger.client.rpc('revoke_api_token', { p_id: randomUUID() });
    expect(theirs.error).toMatchObject({ message: apiTokenMessages.tokenNotFound });
    expect({ status: theirs.status, message: theirs.error?.message }).toEqual({ status: none.status, message: none.error?.message });
    expect((await call(api, token)).status).toBe(200);
    expect((await owner.client.rpc('revoke_api_token', { p_id: id })).error).toBeNull();
    expect((await owner.client.rpc('revoke_api_token', { p_id: id })).error).toMatchObject({ message: apiTokenMessages.tokenNotFound });
    await expectRefused(await call(api, token), 401, 'invalid_token', apiTokenMessages.invalidToken);
    expect((await owner.client.from('api_tokens').select('id')).data).toEqual([]);
  });
});

describe('the middleware', () => {
  it("acts as the token's owner at aal2, and records the last use and its address", async () => {
    const user = await createTestUser(s, { credits: 12 });
    await verifyNewFactor(user);
    const { id, token } = await tokenOf(user);
    const res = await call(api, token);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ caller: { tokenId: id, userId: user.id, scopes: ['billing:read'] }, row: { uid: user.id, balance: '12.00' } });
    const { data } = await user.client.from('api_tokens').select('last_used_at, last_used_ip');
    expect(data![0]!.last_used_ip).toBe('127.0.0.1');
    expect(Date.now() - Date.parse(data![0]!.last_used_at as string)).toBeLessThan(60_000);
  });

  it('answers 401 to a missing, malformed, mistyped, unknown, expired token and to a banned or closed account', async () => {
    await expectRefused(await call(api, undefined), 401, 'invalid_token', apiTokenMessages.missingToken);
    await expectRefused(await call(api, undefined, { authorization: 'Basic dXNlcjpwYXNz' }), 401, 'invalid_token', apiTokenMessages.invalidToken);
    await expectRefused(await call(api, 'nhp_short'), 401, 'invalid_token', apiTokenMessages.invalidToken);
    const user = await createTestUser(s);
    const { id, token } = await tokenOf(user);
    // A bad checksum is refused before the database is read.
    const before = reads;
    const mistyped = `${token.slice(0, 10)}${token[10] === 'a' ? 'b' : 'a'}${token.slice(11)}`;
    await expectRefused(await call(api, mistyped), 401, 'invalid_token', apiTokenMessages.invalidToken);
    expect(reads).toBe(before);
    await expectRefused(await call(api, generateApiToken()), 401, 'invalid_token', apiTokenMessages.invalidToken);
    expect(reads).toBe(before + 1);
    // The owner's session is not the token's: signing out everywhere leaves it working.
    await user.client.auth.signOut({ scope: 'global' });
    expect((await call(api, token)).status).toBe(200);

    await s.deps.db.query(`update private.api_tokens set expires_at = now() - interval '1 second' where id = $1`, [id]);
    await expectRefused(await call(api, token), 401, 'invalid_token', apiTokenMessages.invalidToken);

    const banned = await createTestUser(s);
    const second = await tokenOf(banned);
    await s.deps.db.query(`update auth.users set banned_until = 'infinity' where id = $1`, [banned.id]);
    await expectRefused(await call(api, second.token), 401, 'invalid_token', apiTokenMessages.invalidToken);

    // Closing the account deletes its tokens.
    const leaving = await createTestUser(s);
    const third = await tokenOf(leaving);
    expect((await leaving.client.rpc('delete_own_account', { p_email: leaving.email })).error).toBeNull();
    await expectRefused(await call(api, third.token), 401, 'invalid_token', apiTokenMessages.invalidToken);
    expect((await s.deps.db.query('select 1 from private.api_tokens where user_id = $1', [leaving.id])).rowCount).toBe(0);
  });

  it('answers 403 outside the allow-list, reading the address as TRUST_PROXY says', async () => {
    const user = await createTestUser(s);
    const ranged = await tokenOf(user, { allowedIps: ['10.0.0.0/8', '2001:db8::/32'] });
    await expectRefused(await call(api, ranged.token), 403, 'ip_not_allowed', apiTokenMessages.ipNotAllowed);
    // Without a trusted proxy, whatever X-Forwarded-For the client writes is ignored.
    await expectRefused(await call(api, ranged.token, { 'x-forwarded-for': '10.1.2.3' }), 403, 'ip_not_allowed', apiTokenMessages.ipNotAllowed);
    expect((await call(behindProxy, ranged.token, { 'x-forwarded-for': '10.1.2.3' })).status).toBe(200);
    await expectRefused(await call(behindProxy, ranged.token, { 'x-forwarded-for': '11.0.0.1' }), 403, 'ip_not_allowed', apiTokenMessages.ipNotAllowed);
    const local = await tokenOf(user, { allowedIps: ['127.0.0.1'] });
    expect((await call(api, local.token)).status).toBe(200);
    // The address recorded is the one resolved through the trusted proxy.
    const { data } = await user.client.from('api_tokens').select('id, last_used_ip');
    expect(data!.find((t) => t.id === ranged.id)!.last_used_ip).toBe('10.1.2.3');
  });

  it('answers 403 for a scope the token lacks', async () => {
    const user = await createTestUser(s);
    const { token } = await tokenOf(user, { scopes: ['services:read'] });
    await expectRefused(await call(api, token), 403, 'insufficient_scope', apiTokenMessages.insufficientScope('billing:read'));
  });

  it(`answers 429 with Retry-After past ${API_TOKEN_REQUESTS_PER_MINUTE} requests a minute of one token, and not for another`, async () => {
    const user = await createTestUser(s);
    const { id, token } = await tokenOf(user);
    const other = await tokenOf(user);
    expect((await call(limited, token)).status).toBe(200);
    await s.deps.db.query(`update nodeharbor.rate_limits set count = $2 where key = $1`, [`api:token:${id}`, API_TOKEN_REQUESTS_PER_MINUTE]);
    const res = await call(limited, token);
    expect(res.status).toBe(429);
    const wait = Number(res.headers.get('retry-after'));
    expect(wait).toBeGreaterThan(0);
    expect(wait).toBeLessThanOrEqual(60);
    expect(await res.json()).toEqual({ code: 'rate_limited', message: apiTokenMessages.rateLimited(wait) });
    expect((await call(limited, other.token)).status).toBe(200);
  });
});

describe('a token is not a session', () => {
  it('is refused by /auth/v1, /rest/v1 and /functions/v1', async () => {
    const user = await createTestUser(s, { credits: 5 });
    const { token } = await tokenOf(user);
    const headers = { apikey: s.anonKey, authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const refusal = { code: 401, error_code: 'no_authorization', msg: apiTokenMessages.onlyOnApi };
    const read = await fetch(`${s.url}/auth/v1/user`, { headers });
    expect({ status: read.status, body: await read.json() }).toEqual({ status: 401, body: refusal });
    const put = await fetch(`${s.url}/auth/v1/user`, { method: 'PUT', headers, body: JSON.stringify({ password: 'another-long-password-1' }) });
    expect({ status: put.status, body: await put.json() }).toEqual({ status: 401, body: refusal });
    const enrol = await fetch(`${s.url}/auth/v1/factors`, { method: 'POST', headers, body: JSON.stringify({ factor_type: 'totp' }) });
    expect(enrol.status).toBe(401);
    expect((await fetch(`${s.url}/rest/v1/services?select=*`, { headers })).status).toBe(401);
    expect((await fetch(`${s.url}/rest/v1/rpc/revoke_api_token`, { method: 'POST', headers, body: JSON.stringify({ p_id: randomUUID() }) })).status).toBe(401);
    for (const name of ['api-token', 'purchase-credits', 'contact-settings', 'contact-form']) {
      const r = await fetch(`${s.url}/functions/v1/${name}`, { method: 'POST', headers, body: JSON.stringify({ name: 'x', scopes: ['billing:read'] }) });
      expect({ name, status: r.status, body: await r.json() }).toEqual({ name, status: 401, body: { error: apiTokenMessages.onlyOnApi } });
    }
  });

  it('appears in no log line', async () => {
    const user = await createTestUser(s);
    const { token } = await tokenOf(user);
    await call(api, token);
    await fetch(`${s.url}/rest/v1/services?select=*`, { headers: { apikey: s.anonKey, authorization: `Bearer ${token}` } });
    await fetch(`${s.url}/auth/v1/user`, { headers: { apikey: s.anonKey, authorization: `Bearer ${token}` } });
    expect(logLines.length).toBeGreaterThan(0);
    const all = logLines.join('\n');
    expect(all).not.toContain(token);
    expect(all).not.toContain(token.slice(12));
  });
});

describe('what SQL refuses to an API token caller', () => {
  /** As asTokenOwner sets the claims of a request made with a token. */
  async function asToken<T>(user: TestUser, fn: (tx: Queryable) => Promise<T>): Promise<T> {
    const claims = { sub: user.id, role: 'authenticated', aal: 'aal2', amr: [{ method: 'api_token', timestamp: 0 }], token_id: randomUUID() };
    return withClaims(s.deps.db, { role: 'authenticated', claims }, fn);
  }
  /** The token's claims with the server's own role: the tables' triggers hold whatever function writes. */
  async function asTokenWriting<T>(user: TestUser, fn: (tx: Queryable) => Promise<T>): Promise<T> {
    return s.deps.db.transaction(async (tx) => {
      await tx.query(`select set_config('request.jwt.claims', $1, true)`, [JSON.stringify({ sub: user.id, amr: [{ method: 'api_token' }] })]);
      return fn(tx);
    });
  }

  it('refuses creating and revoking tokens, closing the account, and changing the password, e-mail or factors', async () => {
    const user = await createTestUser(s);
    const { id, token } = await tokenOf(user);
    const refused = { message: apiTokenMessages.notWithApiToken, code: '42501' };
    await expect(asToken(user, (tx) => tx.query('select public.revoke_api_token($1)', [id]))).rejects.toMatchObject(refused);
    await expect(
      asToken(user, (tx) => tx.query(`select private.create_api_token('x', array['billing:read'], null, '{}', 'nhp_aaaaaaaa', $1)`, ['b'.repeat(64)])),
    ).rejects.toMatchObject(refused);
    await expect(asToken(user, (tx) => tx.query('select public.delete_own_account($1)', [user.email]))).rejects.toMatchObject(refused);
    await expect(asTokenWriting(user, (tx) => tx.query(`update auth.users set encrypted_password = 'x' where id = $1`, [user.id]))).rejects.toMatchObject(
      refused,
    );
    await expect(asTokenWriting(user, (tx) => tx.query(`update auth.users set email = 'new@nodeharbor.test' where id = $1`, [user.id]))).rejects.toMatchObject(
      refused,
    );
    await expect(
      asTokenWriting(user, (tx) =>
        tx.query(`insert into auth.mfa_factors (id, user_id, friendly_name, factor_type, status) values ($1, $2, 'x', 'totp', 'verified')`, [
          randomUUID(),
          user.id,
        ]),
      ),
    ).rejects.toMatchObject(refused);
    await expect(asTokenWriting(user, (tx) => tx.query('delete from private.api_tokens where id = $1', [id]))).rejects.toMatchObject(refused);
    // An admin's token has none of the admin's rights; the admin's session keeps them.
    const admin = await createTestUser(s, { admin: true });
    const isAdmin = 'select public.is_user_admin(auth.uid()) as admin, private.is_admin(auth.uid()) as private_admin';
    await expect(asToken(admin, async (tx) => (await tx.query(isAdmin)).rows[0])).resolves.toEqual({ admin: false, private_admin: false });
    expect((await admin.client.rpc('is_user_admin', { user_uuid: admin.id })).data).toBe(true);
    // Everything still stands, and the token still works: nothing above got through.
    expect((await call(api, token)).status).toBe(200);
    const { error } = await user.client.auth.signInWithPassword({ email: user.email, password: user.password });
    expect(error).toBeNull();
  });
});
