import { mkdtempSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser } from '../src/server/auth/users';
import { bootstrap } from '../src/server/bootstrap';
import { loadConfig } from '../src/server/env';
import { createTestDatabase } from './helpers/database';
import { runDueJobs } from './helpers/jobs';
import { startTestServer, type TestServer } from './helpers/server';

describe('platform', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer();
  });
  afterAll(() => s.stop());

  it('reports health with the database kind', async () => {
    const r = await fetch(`${s.url}/healthz`);
    expect(r.status).toBe(200);
    expect(await r.json()).toMatchObject({ status: 'ok' });
  });

  it('serves config.json for the front end', async () => {
    const r = await fetch(`${s.url}/config.json`);
    expect(await r.json()).toEqual({
      supabaseUrl: s.url,
      supabaseAnonKey: s.anonKey,
      registrationEnabled: false,
      devHostSuffixes: ['.lovableproject.com'],
      statusUrl: null,
      suspensionDays: 14,
      testPayments: false,
      cryptoPayments: false,
    });
  });

  it('gives the browser its own address in config.json whatever Host a request names (issue 33, item 8)', async () => {
    // fetch sets Host itself: a raw request names another one, as an attacker's link or proxy can.
    const forged = await new Promise<{ body: string; csp: string }>((resolve, reject) => {
      const req = request(`${s.url}/config.json`, { headers: { Host: 'evil.example:8080' } }, (res) => {
        let body = '';
        res.on('data', (d: Buffer) => (body += d.toString()));
        res.on('end', () => resolve({ body, csp: String(res.headers['content-security-policy']) }));
      });
      req.on('error', reject);
      req.end();
    });
    expect((JSON.parse(forged.body) as { supabaseUrl: string }).supabaseUrl).toBe(s.url);
    expect(forged.csp).not.toContain('evil.example');
  });

  it('sets security headers on every response', async () => {
    const r = await fetch(`${s.url}/healthz`);
    expect(r.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(r.headers.get('content-security-policy')).not.toMatch(/script-src[^;]*unsafe-inline/);
    expect(r.headers.get('x-content-type-options')).toBe('nosniff');
    expect(r.headers.get('referrer-policy')).toBe('strict-origin-when-cross-origin');
    expect(r.headers.get('strict-transport-security')).toBeNull();
    expect(r.headers.get('x-frame-options')).toBe('DENY');
    expect(r.headers.get('cross-origin-opener-policy')).toBe('same-origin');
    expect(r.headers.get('permissions-policy')).toBe('camera=(), microphone=(), geolocation=()');
    // Every fetch, font and image source the pages need, and nothing the API's callers would be refused by;
    // the API is at the site's own address (PUBLIC_URL, or the one it listens on), wherever a page was opened.
    expect(r.headers.get('content-security-policy')).toMatch(
      /^default-src 'self'; script-src 'self' 'sha256-[A-Za-z0-9+/=]+'; style-src 'self' 'unsafe-inline'; img-src 'self' data: https:; font-src 'self' data:; connect-src 'self' http:\/\/127\.0\.0\.1:\d+; object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'$/,
    );
    expect(r.headers.get('cross-origin-resource-policy')).toBeNull();
    // hono/secure-headers' defaults for old browsers and mere hints are not sent.
    for (const name of ['x-xss-protection', 'x-download-options', 'x-permitted-cross-domain-policies', 'x-dns-prefetch-control', 'origin-agent-cluster']) {
      expect(r.headers.get(name), name).toBeNull();
    }
  });
});

describe('platform HTTP behaviour', () => {
  let s: TestServer;
  const logLines: string[] = [];
  beforeAll(async () => {
    s = await startTestServer({ BODY_LIMIT_BYTES: '2048' }, { logLines });
  });
  afterAll(() => s.stop());

  it('answers CORS preflights with what supabase-js sends and reads', async () => {
    const r = await fetch(`${s.url}/rest/v1/services`, {
      method: 'OPTIONS',
      headers: {
        Origin: 'https://elsewhere.example',
        'Access-Control-Request-Method': 'POST',
        'Access-Control-Request-Headers': 'authorization,apikey,content-type,x-client-info,prefer',
      },
    });
    expect(r.status).toBe(204);
    expect(r.headers.get('access-control-allow-origin')).toBe('*');
    expect(r.headers.get('access-control-allow-headers')).toContain('apikey');
    const get = await fetch(`${s.url}/auth/v1/settings`, { headers: { Origin: 'https://elsewhere.example' } });
    const exposed = get.headers.get('access-control-expose-headers') ?? '';
    expect(exposed).toContain('X-Supabase-Api-Version');
    expect(exposed).toContain('Content-Range');
    expect(get.headers.get('access-control-allow-origin')).toBe('*');
    // Refusals too, or the browser would hide their message from supabase-js.
    const refused = await fetch(`${s.url}/rest/v1/services`, { headers: { Origin: 'https://elsewhere.example' } });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('access-control-allow-origin')).toBe('*');
    expect(refused.headers.get('access-control-expose-headers')).toContain('Content-Range');
    expect(refused.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('tells every cache to keep no API answer: they carry tokens, keys and balances', async () => {
    const email = `nostore-${Date.now()}@nodeharbor.test`;
    await createUser(s.deps.db, { email, password: 'correct-horse-battery' });
    const token = await fetch(`${s.url}/auth/v1/token?grant_type=password`, {
      method: 'POST',
      headers: { apikey: s.anonKey, 'Content-Type': 'application/json' },
      body: JSON.stringify({ email, password: 'correct-horse-battery' }),
    });
    expect(token.status).toBe(200);
    expect(token.headers.get('cache-control')).toBe('no-store');
    const { access_token } = (await token.json()) as { access_token: string };
    const services = await fetch(`${s.url}/rest/v1/services?select=api_key`, { headers: { apikey: s.anonKey, Authorization: `Bearer ${access_token}` } });
    expect(services.status).toBe(200);
    expect(services.headers.get('cache-control')).toBe('no-store');
    const fn = await fetch(`${s.url}/functions/v1/purchase-credits`, { method: 'POST', headers: { apikey: s.anonKey } });
    expect(fn.headers.get('cache-control')).toBe('no-store');
  });

  it('refuses a body over the limit with 413 and changes nothing', async () => {
    const r = await fetch(`${s.url}/rest/v1/rpc/anything`, {
      method: 'POST',
      headers: { apikey: s.anonKey, 'Content-Type': 'application/json' },
      body: JSON.stringify({ x: 'a'.repeat(4096) }),
    });
    expect(r.status).toBe(413);
    expect(await r.json()).toMatchObject({ message: 'Request body too large' });
  });

  it('logs one line per request with method, path, status and time, and no secrets', async () => {
    logLines.length = 0;
    await fetch(`${s.url}/auth/v1/verify?token=secret-token-123&type=recovery`, {
      headers: { Authorization: `Bearer ${s.serviceRoleKey}`, apikey: s.anonKey },
      redirect: 'manual',
    });
    const lines = logLines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.msg === 'request');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ method: 'GET', path: '/auth/v1/verify' });
    expect(typeof lines[0]!.status).toBe('number');
    expect(typeof lines[0]!.ms).toBe('number');
    const all = logLines.join('\n');
    expect(all).not.toContain('secret-token-123');
    expect(all).not.toContain(s.serviceRoleKey);
    expect(all).not.toContain(s.anonKey);
  });

  it('keeps e-mail addresses out of the logs when it sends mail', async () => {
    await createUser(s.deps.db, { email: 'private-person@nodeharbor.test', password: 'quiet-secret-pass' });
    logLines.length = 0;
    const r = await fetch(`${s.url}/auth/v1/recover`, {
      method: 'POST',
      headers: { apikey: s.anonKey, 'Content-Type': 'application/json' },
      body: JSON.stringify({ email: 'private-person@nodeharbor.test' }),
    });
    expect(r.status).toBe(200);
    await runDueJobs(s);
    expect(logLines.some((l) => l.includes('mail kept in outbox'))).toBe(true);
    expect(logLines.join('\n')).not.toContain('private-person');
  });

  // Issue 42, item 5: any client could pin a site it reached over http to https, for two years.
  it('believes no X-Forwarded-Proto without TRUST_PROXY: HSTS only over https', async () => {
    const r = await fetch(`${s.url}/healthz`, { headers: { 'X-Forwarded-Proto': 'https' } });
    expect(r.headers.get('strict-transport-security')).toBeNull();
  });
});

describe('HSTS behind a proxy', () => {
  it.each<[string, string, string | null]>([
    ['loopback', 'believes', 'max-age=63072000; includeSubDomains'],
    // The proxies it trusts are elsewhere: this peer is a client, and its header is its own text.
    ['10.0.0.0/8', 'does not believe', null],
  ])('with TRUST_PROXY=%s, %s X-Forwarded-Proto from 127.0.0.1', async (trustProxy, _what, hsts) => {
    const s = await startTestServer({ TRUST_PROXY: trustProxy });
    try {
      const r = await fetch(`${s.url}/healthz`, { headers: { 'X-Forwarded-Proto': 'https' } });
      expect(r.headers.get('strict-transport-security')).toBe(hsts);
      const plain = await fetch(`${s.url}/healthz`, { headers: { 'X-Forwarded-Proto': 'http' } });
      expect(plain.headers.get('strict-transport-security')).toBeNull();
    } finally {
      await s.stop();
    }
  });
});

describe('the encryption key', () => {
  it('cannot change once the database holds secrets encrypted with it', async () => {
    const t = await createTestDatabase();
    const config = (key: string) =>
      loadConfig({ DATA_DIR: mkdtempSync(join(tmpdir(), 'nh-key-')), JWT_SECRET: 'j'.repeat(32), ENCRYPTION_KEY: key, LOG_LEVEL: 'silent' });
    await bootstrap(config('k'.repeat(32)), { db: t.db });
    await bootstrap(config('k'.repeat(32)), { db: t.db });
    // A refused start closes the database it opened.
    await expect(bootstrap(config('x'.repeat(32)), { db: t.db })).rejects.toThrow(/ENCRYPTION_KEY is not the key this database was set up with/);
    await t.drop();
  });
});
