import { Hono } from 'hono';
import type { AppDeps } from '../deps';
import { renderStatusPage, STATUS_CSS } from './status-html';
import { readStatusSummary } from './status-summary';

type Rendered = { at: number; html: string; json: string };

/**
 * /status, /status.json and /status.css: the public status page (decision 045). The figures are
 * read and the page drawn at most once per STATUS_CACHE_SECONDS, however many ask (one read in
 * flight at a time), so the page costs the database nothing under a crowd; browsers and proxies may
 * keep it as long.
 */
export function statusRoutes(deps: Pick<AppDeps, 'db' | 'config'>) {
  const { cacheSeconds, minNodes } = deps.config.statusPage;
  let fresh: Rendered | undefined;
  let reading: Promise<Rendered> | undefined;

  async function rendered(): Promise<Rendered> {
    if (fresh && Date.now() - fresh.at < cacheSeconds * 1000) return fresh;
    // Requests that arrive while it is read wait for the same read; a failed one is not kept.
    reading ??= (async () => {
      const summary = await readStatusSummary(deps.db, minNodes);
      return (fresh = { at: Date.now(), html: await renderStatusPage(summary), json: JSON.stringify(summary) });
    })().finally(() => (reading = undefined));
    return reading;
  }

  const caching = { 'Cache-Control': `public, max-age=${cacheSeconds}` };
  const app = new Hono();
  app.get('/status', async (c) => c.html((await rendered()).html, 200, caching));
  app.get('/status.json', async (c) => c.body((await rendered()).json, 200, { ...caching, 'Content-Type': 'application/json; charset=utf-8' }));
  app.get('/status.css', (c) => c.body(STATUS_CSS, 200, { 'Content-Type': 'text/css; charset=utf-8', 'Cache-Control': 'public, max-age=3600' }));
  return app;
}
