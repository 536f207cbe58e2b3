// npm run bench:web: the public site's budgets (issue 5), measured on the built app served by the real server.
//   - initial JavaScript of each public route, gzip bytes (budget 100 KB), and no dashboard or supabase-js code.
//     A route's own JavaScript is what its page fetched before any client-side navigation: a route
//     that sends the visitor on (a tokenless /reset-password-confirm goes to /reset-password, whose
//     form then loads at once) is also shown with what followed, and its destination has its own row
//     (decision 017);
//   - Lighthouse (mobile preset) performance and accessibility on /, /gala-hosting/host-node and /contact (budget 95);
//   - axe: no serious or critical violation on any public route.
// Prints a table, writes bench/results/web-latest.json, and exits 1 when a budget is missed.
import AxeBuilder from '@axe-core/playwright';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import lighthouse from 'lighthouse';
import { chromium, type Page } from 'playwright-core';
import { ROOT, WEB_DIST } from '../src/server/paths';
import { freePort } from '../test/helpers/process';
import { buildIfStale } from '../scripts/source-stamp.mjs';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const JS_BUDGET = 100 * 1024;
const SCORE_BUDGET = 95;
const LIGHTHOUSE_RUNS = 3;
const publicRoutes = [
  '/',
  '/about',
  '/contact',
  '/terms',
  '/privacy',
  '/cookies',
  '/login',
  '/register',
  '/reset-password',
  '/reset-password-confirm',
  '/gala-hosting/host-node',
  '/gala-hosting/api-key',
  '/playa3ull-hosting/host-node',
  '/no-such-page',
];
const lighthouseRoutes = ['/', '/gala-hosting/host-node', '/contact'];
const chromiumFlags = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

if (!buildIfStale(ROOT)) process.exit(1);

async function startServer(): Promise<{ url: string; child: ChildProcess; dataDir: string }> {
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), 'nh-bench-web-'));
  const child = spawn(process.execPath, [join(ROOT, 'dist/server/main.js')], {
    cwd: ROOT,
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'warn', RUN_WORKER: 'false' },
    stdio: 'ignore',
  });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 240; i++) {
    if (
      await fetch(`${url}/healthz`).then(
        (r) => r.ok,
        () => false,
      )
    )
      return { url, child, dataDir };
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error('the server did not become healthy');
}

/** Which module each built file came from, to name what a page loaded. */
const manifest = JSON.parse(readFileSync(join(WEB_DIST, '.vite/manifest.json'), 'utf8')) as Record<string, { file: string }>;
const sourceOf = new Map(Object.entries(manifest).map(([src, v]) => [`/${v.file}`, src]));
const gzipBytes = (path: string) => readFileSync(join(WEB_DIST, `${path}.gz`)).length;
const jsBytes = (paths: readonly string[]) => paths.filter((s) => existsSync(join(WEB_DIST, `${s}.gz`))).reduce((n, s) => n + gzipBytes(s), 0);

/**
 * Runs in each page before its scripts: notes the time of the first client-side navigation, a
 * history change of the path (the router's own replaceState at start keeps the path, so it is none).
 */
function markFirstNavigation() {
  const w = window as unknown as { __firstNavigationAt?: number };
  for (const method of ['pushState', 'replaceState'] as const) {
    const original = history[method].bind(history);
    history[method] = (data: unknown, unused: string, url?: string | URL | null) => {
      const before = location.pathname;
      original(data, unused, url);
      if (w.__firstNavigationAt === undefined && location.pathname !== before) w.__firstNavigationAt = performance.now();
    };
  }
}

/** The scripts a route's own page fetched: all of them, or those started before its first client-side navigation. */
async function ownScripts(page: Page, all: ReadonlySet<string>): Promise<string[]> {
  const before = await page.evaluate(() => {
    const at = (window as unknown as { __firstNavigationAt?: number }).__firstNavigationAt;
    if (at === undefined) return null;
    return performance
      .getEntriesByType('resource')
      .filter((e) => e.startTime < at)
      .map((e) => new URL(e.name).pathname);
  });
  return before ? [...all].filter((s) => before.includes(s)) : [...all];
}

const server = await startServer();
const browser = await chromium.launch({ executablePath: CHROMIUM, args: chromiumFlags });
const failures: string[] = [];
const results: Record<string, unknown> = { date: new Date().toISOString(), routes: {}, lighthouse: {} };

try {
  console.log('\nInitial JavaScript per public route (gzip) and axe');
  console.log('route                          JS gzip   files  forbidden          axe serious/critical');
  for (const route of publicRoutes) {
    const context = await browser.newContext({ viewport: { width: 375, height: 740 } });
    await context.addInitScript(markFirstNavigation);
    const page = await context.newPage();
    const scripts = new Set<string>();
    page.on('request', (r) => {
      const u = new URL(r.url());
      if (r.resourceType() === 'script' && u.origin === server.url) scripts.add(u.pathname);
    });
    await page.goto(`${server.url}${route}`, { waitUntil: 'networkidle' });
    const own = await ownScripts(page, scripts);
    const bytes = jsBytes(own);
    const landed = new URL(page.url()).pathname;
    const forbidden = [...scripts].map((s) => sourceOf.get(s) ?? s).filter((s) => /supabase-js|dashboard|admin/.test(s));
    const { violations } = await new AxeBuilder({ page }).analyze();
    const bad = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id);
    const onward = landed === route ? '' : `   then ${landed}: ${(jsBytes([...scripts]) / 1024).toFixed(1)} KB in all`;
    console.log(
      `${route.padEnd(30)} ${`${(bytes / 1024).toFixed(1)} KB`.padStart(8)}   ${String(own.length).padStart(5)}  ${(forbidden.join(',') || '-').padEnd(18)} ${bad.join(',') || '0'}${onward}`,
    );
    (results.routes as Record<string, unknown>)[route] = {
      jsGzipBytes: bytes,
      files: own.length,
      forbidden,
      axe: bad,
      ...(landed === route ? {} : { landedOn: landed, jsGzipBytesWithOnward: jsBytes([...scripts]) }),
    };
    if (bytes > JS_BUDGET) failures.push(`${route}: ${bytes} bytes of JavaScript > ${JS_BUDGET}`);
    if (forbidden.length) failures.push(`${route}: loads ${forbidden.join(', ')}`);
    if (bad.length) failures.push(`${route}: axe ${bad.join(', ')}`);
    await context.close();
  }
} finally {
  await browser.close();
}

// Lighthouse drives its own Chromium through the DevTools protocol.
const debugPort = await freePort();
const profile = mkdtempSync(join(tmpdir(), 'nh-lh-'));
// Its own process group: Debian's /usr/bin/chromium is a wrapper script, and the browser must go with it.
const chrome = spawn(CHROMIUM, ['--headless=new', `--remote-debugging-port=${debugPort}`, `--user-data-dir=${profile}`, ...chromiumFlags, 'about:blank'], {
  stdio: 'ignore',
  detached: true,
});
try {
  for (
    let i = 0;
    i < 80 &&
    !(await fetch(`http://127.0.0.1:${debugPort}/json/version`).then(
      (r) => r.ok,
      () => false,
    ));
    i++
  ) {
    await new Promise((r) => setTimeout(r, 250));
  }
  console.log(`\nLighthouse, mobile preset (median of ${LIGHTHOUSE_RUNS} runs: a shared machine is noisy)`);
  console.log('route                          performance  accessibility   FCP ms   LCP ms   TBT ms    CLS');
  for (const route of lighthouseRoutes) {
    const runs = [];
    for (let i = 0; i < LIGHTHOUSE_RUNS; i++) {
      const run = await lighthouse(`${server.url}${route}`, {
        port: debugPort,
        output: 'json',
        logLevel: 'error',
        onlyCategories: ['performance', 'accessibility'],
      });
      const { categories: cats, audits } = run!.lhr;
      runs.push({
        performance: Math.round((cats.performance?.score ?? 0) * 100),
        accessibility: Math.round((cats.accessibility?.score ?? 0) * 100),
        fcp: Math.round(audits['first-contentful-paint']?.numericValue ?? 0),
        lcp: Math.round(audits['largest-contentful-paint']?.numericValue ?? 0),
        tbt: Math.round(audits['total-blocking-time']?.numericValue ?? 0),
        cls: Number((audits['cumulative-layout-shift']?.numericValue ?? 0).toFixed(3)),
      });
    }
    const median = runs.sort((a, b) => a.performance - b.performance)[Math.floor(runs.length / 2)]!;
    const { performance: perf, accessibility: a11y } = median;
    console.log(
      `${route.padEnd(30)} ${String(perf).padStart(11)}  ${String(a11y).padStart(13)} ${String(median.fcp).padStart(8)} ${String(median.lcp).padStart(8)} ${String(median.tbt).padStart(8)} ${String(median.cls).padStart(6)}`,
    );
    (results.lighthouse as Record<string, unknown>)[route] = { ...median, runs: runs.map((r) => r.performance) };
    if (perf < SCORE_BUDGET) failures.push(`${route}: Lighthouse performance ${perf} < ${SCORE_BUDGET}`);
    if (a11y < SCORE_BUDGET) failures.push(`${route}: Lighthouse accessibility ${a11y} < ${SCORE_BUDGET}`);
  }
} finally {
  process.kill(-chrome.pid!, 'SIGKILL');
  server.child.kill('SIGTERM');
  await new Promise((r) => setTimeout(r, 500));
  rmSync(profile, { recursive: true, force: true, maxRetries: 5 });
}
await new Promise((r) => setTimeout(r, 500));
rmSync(server.dataDir, { recursive: true, force: true });

mkdirSync(join(ROOT, 'bench/results'), { recursive: true });
writeFileSync(join(ROOT, 'bench/results/web-latest.json'), `${JSON.stringify({ ...results, failures }, null, 2)}\n`);
if (failures.length) {
  console.log(`\nBudgets missed:\n${failures.map((f) => `  - ${f}`).join('\n')}`);
  process.exit(1);
}
console.log('\nEvery web budget met.');
process.exit(0);
