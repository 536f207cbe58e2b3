import { serveStatic } from '@hono/node-server/serve-static';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Hono } from 'hono';

/** Whether `path` matches a route pattern segment by segment; a `:name` segment stands for any one. */
function matchesSegments(path: string, pattern: string): boolean {
  const want = pattern.split('/');
  const got = path.split('/');
  return want.length === got.length && want.every((w, i) => (w.startsWith(':') ? got[i] !== '' : w === got[i]));
}

/** Whether `path` is one of the client-only routes (`/dashboard/*` covers /dashboard and below, `/admin/users/:userId` any one user). */
function isClientRoute(path: string, patterns: readonly string[]): boolean {
  return patterns.some((p) => (p.endsWith('/*') ? path === p.slice(0, -2) || path.startsWith(p.slice(0, -1)) : matchesSegments(path, p)));
}

/**
 * Serves the built front end with @hono/node-server's serveStatic, streamed, and the .br or .gz
 * the build wrote beside each text file when the client accepts it: a file when one matches, the
 * prerendered page of a route (`/about` → `about/index.html`), the app shell (200.html) for the
 * client-only routes the build lists in spa-routes.json, and the prerendered 404 page, with
 * status 404, for anything else.
 */
export function mountStatic(app: Hono, dir: string): void {
  const root = resolve(dir);
  const spaRoutesFile = join(root, 'spa-routes.json');
  const spaRoutes: string[] = existsSync(spaRoutesFile) ? (JSON.parse(readFileSync(spaRoutesFile, 'utf8')) as string[]) : [];
  const options = { root, precompressed: true };
  const file = serveStatic(options);
  const shell = serveStatic({ ...options, path: '200.html' });
  const notFoundPage = serveStatic({ ...options, path: '404.html' });

  app.on(['GET', 'HEAD'], '*', (c, next) => {
    try {
      decodeURIComponent(c.req.path);
    } catch {
      return c.text('Bad request', 400);
    }
    // Prepared before serveStatic answers: hashed assets never change; every page is checked again.
    c.header('Cache-Control', c.req.path.startsWith('/assets/') ? 'public, max-age=31536000, immutable' : 'no-cache');
    return next();
  });
  app.on(['GET', 'HEAD'], '*', file);
  app.on(['GET', 'HEAD'], '*', (c, next) => (isClientRoute(c.req.path, spaRoutes) ? shell(c, next) : next()));
  app.on(['GET', 'HEAD'], '*', async (c, next) => {
    const page = await notFoundPage(c, next);
    if (!page) return;
    const headers = new Headers(page.headers);
    headers.set('Cache-Control', 'no-cache');
    return new Response(page.body, { status: 404, headers });
  });
  app.on(['GET', 'HEAD'], '*', (c) => c.text('The web app is not built. Run npm run build.', 404));
}
