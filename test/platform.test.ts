import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
    });
  });

  it('sets security headers on every response', async () => {
    const r = await fetch(`${s.url}/healthz`);
    expect(r.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(r.headers.get('content-security-policy')).not.toMatch(/script-src[^;]*unsafe-inline/);
    expect(r.headers.get('x-content-type-options')).toBe('nosniff');
    expect(r.headers.get('referrer-policy')).toBe('strict-origin-when-cross-origin');
    expect(r.headers.get('strict-transport-security')).toBeNull();
  });
});
