import { rmSync } from 'node:fs';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { startAppWorker } from '../../src/server/jobs/app-worker';
import { WEB_DIST } from '../../src/server/paths';
import { freePort } from '../../test/helpers/process';
import { startTestServer, type TestServer } from '../../test/helpers/server';
import { stir } from './page-tools';

/**
 * Debian's Chromium headless shell, the build Playwright itself runs for headless tests: the same
 * Blink and V8 as /usr/bin/chromium, without the browser's own layers, at half its CPU
 * (docs/decisions/032-browser-tests-in-the-headless-shell.md).
 */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium-headless-shell';
/** Hosts under this suffix resolve to the test server: the development-host block is tested on them. */
export const DEV_HOST = 'preview.lovableproject.com';

export const DESKTOP = { width: 1280, height: 900 } as const;
export const MOBILE = { width: 375, height: 740 } as const;
export type Viewport = { width: number; height: number };

export type TestApp = {
  server: TestServer;
  /** http://127.0.0.1:PORT */
  url: string;
  /** The same server under a development host name, e.g. http://preview.lovableproject.com:PORT */
  devUrl: string;
  browser: Browser;
  /** A fresh browser context (its own storage) and page; console errors are collected in `errors`. */
  newPage(viewport?: Viewport): Promise<{ page: Page; context: BrowserContext; errors: string[] }>;
  stop(): Promise<void>;
};

/** The servers of this worker's spec files, one per configuration (vitest.e2e.config.ts keeps this module between files). */
const shared = new Map<string, Promise<TestApp>>();

/**
 * The server and Chromium for `env`, shared by every spec file of this worker that asks for the
 * same: started on first use, and ended with the worker (its folder removed then; Chromium is
 * ended by playwright-core as the process exits). Its database holds what every such spec made,
 * so a spec that counts every row of a kind, or acts on every node, takes a server of its own
 * (startApp) and says why.
 */
export function sharedApp(env: Record<string, string> = {}): Promise<TestApp> {
  const key = JSON.stringify(Object.entries(env).sort());
  let app = shared.get(key);
  if (!app) {
    app = startApp(env);
    shared.set(key, app);
    void app.then((a) => process.once('exit', () => rmSync(a.server.deps.config.dataDir, { recursive: true, force: true })));
  }
  return app;
}

/** Closes the pages a spec file left open in the shared browsers: run after each file (vitest.e2e.config.ts). */
export async function closeSharedPages(): Promise<void> {
  for (const app of shared.values()) for (const context of (await app).browser.contexts()) await context.close();
}

/**
 * The real server over a fresh database serving the built app (dist/web), and one Chromium, for
 * one spec file alone. `env` is read like process.env by the server.
 */
export async function startApp(env: Record<string, string> = {}): Promise<TestApp> {
  // PUBLIC_URL is where e-mailed links lead (the reset link), so it must be this server.
  const port = await freePort();
  const server = await startTestServer(
    {
      RATE_LIMITS_ENABLED: 'false',
      PUBLIC_URL: `http://127.0.0.1:${port}`,
      // A node installs in a second and is removed in one: long enough to see Installing and Deleting.
      PROVISION_INSTALL_SECONDS: '1',
      PROVISION_DELETE_SECONDS: '1',
      INSTALL_SETTLE_SECONDS: '0',
      WORKER_POLL_MS: '200',
      ...env,
    },
    { webDir: WEB_DIST, port },
  );
  // As npm start does: the job worker beside the server (installs, deletions, renewals, payments).
  const worker = server.deps.config.runWorker ? await startAppWorker(server.deps) : undefined;
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    // Without the background-networking flags Chromium keeps dialling out of this closed network.
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      `--host-resolver-rules=MAP ${DEV_HOST} 127.0.0.1`,
    ],
  });
  return {
    server,
    url: server.url,
    devUrl: `http://${DEV_HOST}:${port}`,
    browser,
    async newPage(viewport: Viewport = DESKTOP) {
      const context = await browser.newContext({ viewport, reducedMotion: 'reduce' });
      await context.grantPermissions(['clipboard-read', 'clipboard-write']);
      const page = await context.newPage();
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(e.message));
      page.on('console', (m) => {
        if (m.type() === 'error') errors.push(m.text());
      });
      return { page, context, errors };
    },
    async stop() {
      await browser.close();
      await worker?.stop();
      await server.stop();
    },
  };
}

/** Signs in through the login form, as a person would, and waits for the dashboard. */
export async function signIn(page: Page, baseUrl: string, email: string, password: string): Promise<void> {
  await page.goto(`${baseUrl}/login`);
  // Typing before the page's code runs would not wake the deferred form; a hand on the mouse does.
  await stir(page);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign In' }).click();
  await page.waitForURL(/\/dashboard/);
}
