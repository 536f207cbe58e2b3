import { existsSync, readFileSync, statSync } from 'node:fs';
import { extname, join, normalize, resolve, sep } from 'node:path';
import type { Hono } from 'hono';

const types: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.webp': 'image/webp',
  '.ico': 'image/x-icon',
  '.txt': 'text/plain; charset=utf-8',
  '.xml': 'application/xml; charset=utf-8',
  '.woff2': 'font/woff2',
  '.webmanifest': 'application/manifest+json',
};

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
 * Serves the built front end: a file when one matches, the prerendered page of a route
 * (`/about` → `about/index.html`), the app shell (200.html) for the client-only routes the build
 * lists in spa-routes.json, and the prerendered 404 page, with status 404, for anything else.
 */
export function mountStatic(app: Hono, dir: string): void {
  const root = resolve(dir);
  const spaRoutesFile = join(root, 'spa-routes.json');
  const spaRoutes: string[] = existsSync(spaRoutesFile) ? (JSON.parse(readFileSync(spaRoutesFile, 'utf8')) as string[]) : [];
  const file = (rel: string): string | undefined => {
    const abs = normalize(join(root, rel));
    // Inside the folder, up to a separator: a sibling whose name starts the same (web-backup) is outside.
    if (abs !== root && !abs.startsWith(root + sep)) return undefined;
    return existsSync(abs) && statSync(abs).isFile() ? abs : undefined;
  };
  app.on(['GET', 'HEAD'], '*', (c) => {
    let path: string;
    try {
      path = decodeURIComponent(c.req.path);
    } catch {
      return c.text('Bad request', 400);
    }
    let hit = file(path) ?? file(join(path, 'index.html'));
    let status: 200 | 404 = 200;
    if (!hit && isClientRoute(path, spaRoutes)) hit = file('200.html');
    if (!hit && (hit = file('404.html'))) status = 404;
    hit ??= file('index.html');
    if (!hit) return c.text('The web app is not built. Run npm run build.', 404);
    const immutable = path.startsWith('/assets/');
    const headers: Record<string, string> = {
      'Content-Type': types[extname(hit)] ?? 'application/octet-stream',
      'Cache-Control': immutable ? 'public, max-age=31536000, immutable' : 'no-cache',
      Vary: 'Accept-Encoding',
    };
    // The build wrote .br and .gz beside each text file.
    const accepted = c.req.header('accept-encoding') ?? '';
    for (const [encoding, ext] of [['br', '.br'], ['gzip', '.gz']] as const) {
      if (new RegExp(`\\b${encoding}\\b`).test(accepted) && existsSync(hit + ext)) {
        return c.body(readFileSync(hit + ext), status, { ...headers, 'Content-Encoding': encoding });
      }
    }
    return c.body(readFileSync(hit), status, headers);
  });
}
