import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { Hono } from 'hono';
import { beforeAll, describe, expect, it } from 'vitest';
import { mountStatic } from './static';

describe('serving the built front end', () => {
  const app = new Hono();
  beforeAll(() => {
    const root = mkdtempSync(join(tmpdir(), 'nh-web-'));
    const dir = join(root, 'web');
    mkdirSync(join(dir, 'about'), { recursive: true });
    mkdirSync(join(dir, 'assets'));
    writeFileSync(join(dir, 'index.html'), '<h1>Home</h1>');
    writeFileSync(join(dir, '200.html'), '<div id="root"></div>');
    writeFileSync(join(dir, '404.html'), '<h1>Oops! Page not found</h1>');
    writeFileSync(join(dir, 'spa-routes.json'), JSON.stringify(['/dashboard/*', '/admin', '/admin/users/:userId']));
    writeFileSync(join(dir, 'about', 'index.html'), '<h1>About</h1>');
    writeFileSync(join(dir, 'assets', 'app-1234.js'), 'console.log(1)');
    writeFileSync(join(dir, 'assets', 'app-1234.js.gz'), gzipSync('console.log(1)'));
    writeFileSync(join(root, 'secret.txt'), 'do not serve');
    // A sibling whose name starts with the served folder's.
    mkdirSync(join(root, 'web-backup'));
    writeFileSync(join(root, 'web-backup', 'secret.txt'), 'do not serve either');
    mountStatic(app, dir);
  });

  it('serves files, with long caching for hashed assets', async () => {
    const r = await app.request('/assets/app-1234.js');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(r.headers.get('cache-control')).toContain('immutable');
  });

  it('serves a prerendered route, and the app shell for the client-only routes', async () => {
    expect(await (await app.request('/about')).text()).toBe('<h1>About</h1>');
    expect(await (await app.request('/')).text()).toBe('<h1>Home</h1>');
    for (const path of ['/dashboard', '/dashboard/services', '/admin', '/admin/users/0b6c6a1e-5f0c-4f7e-9a31-2f1f3c1e9d10', '/admin/users/anything']) {
      const r = await app.request(path);
      expect(r.status, path).toBe(200);
      expect(await r.text()).toBe('<div id="root"></div>');
      expect(r.headers.get('cache-control')).toBe('no-cache');
    }
  });

  it('answers any other path with the 404 page and status 404', async () => {
    for (const path of ['/nope', '/dashboardx', '/admin/users', '/admin/users/', '/admin/users/a/b', '/assets/missing.js']) {
      const r = await app.request(path);
      expect(r.status, path).toBe(404);
      expect(r.headers.get('cache-control'), path).toBe('no-cache');
      expect(await r.text()).toBe('<h1>Oops! Page not found</h1>');
    }
  });

  it('sends the precompressed file to a client that accepts it, and the plain one otherwise', async () => {
    const gz = await app.request('/assets/app-1234.js', { headers: { 'Accept-Encoding': 'gzip, deflate, br' } });
    expect(gz.headers.get('content-encoding')).toBe('gzip');
    expect(gz.headers.get('vary')).toBe('Accept-Encoding');
    expect(gunzipSync(Buffer.from(await gz.arrayBuffer())).toString()).toBe('console.log(1)');
    const plain = await app.request('/assets/app-1234.js', { headers: { 'Accept-Encoding': 'identity' } });
    expect(plain.headers.get('content-encoding')).toBeNull();
    expect(await plain.text()).toBe('console.log(1)');
  });

  it('never leaves its folder, and refuses a malformed path', async () => {
    expect(await (await app.request('/../secret.txt')).text()).not.toContain('do not serve');
    expect(await (await app.request('/%2e%2e/secret.txt')).text()).not.toContain('do not serve');
    const sibling = await app.request('/..%2Fweb-backup%2Fsecret.txt');
    expect(sibling.status).toBe(404);
    expect(await sibling.text()).not.toContain('do not serve either');
    expect((await app.request('/%E0%A4%A')).status).toBe(400);
  });
});
