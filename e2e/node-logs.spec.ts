import { readFile } from 'node:fs/promises';
import type { Page, Route } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { createJobDeps } from '../src/server/jobs/app-worker';
import type { JobDeps } from '../src/server/jobs/task';
import { installNode } from '../src/server/provisioning/install-node';
import { REDACTED } from '../src/shared/node-health';
import { LOG_FOLLOW_MINUTES, LOG_FOLLOW_SECONDS, LOG_TAIL_MAX } from '../src/shared/node-logs';
import { createTestUser, GALA_KEY, TOWN_STAR, type TestUser } from '../test/helpers/users';
import { seriousViolations } from './helpers/axe';
import { answerJson } from './helpers/page-tools';
import { sharedApp, signIn, type TestApp, type Viewport } from './helpers/app';

// The Logs dialog as a console (issue 36, item 3): it follows a node, searches the lines it shows,
// and downloads the last 1,000 lines from the server, the key redacted in all of them.

/** A common laptop and a common phone (issue 17). */
const DESKTOP: Viewport = { width: 1366, height: 850 };
const PHONE: Viewport = { width: 390, height: 844 };
const HEARTBEAT_SECONDS = 30;

let app: TestApp;
let deps: JobDeps;
beforeAll(async () => {
  // No worker: the test installs its nodes itself, through the worker's own step.
  app = await sharedApp({ RUN_WORKER: 'false' });
  deps = await createJobDeps(app.server.deps);
});

async function liveService(user: TestUser, name: string): Promise<string> {
  const { data, error } = await user.client.rpc('create_service_securely', { p_name: name, p_description: null, p_api_key: GALA_KEY, p_product_id: TOWN_STAR });
  if (error) throw error;
  const id = (data as { id: string }).id;
  await installNode(deps, id);
  return id;
}

/** The simulated node has been running this long: it has printed a heartbeat every 30 s since. */
const runningFor = (id: string, seconds: number) =>
  app.server.deps.db.query('update nodeharbor.simulated_nodes set started_at = now() - make_interval(secs => $2) where service_id = $1', [id, seconds]);

/** The number of the last heartbeat in `text`. */
const lastBeat = (text: string) => Number([...text.matchAll(/heartbeat (\d+):/g)].at(-1)?.[1]);

async function openLogs(page: Page, url: string, name: string) {
  await page.goto(url);
  await page.getByRole('button', { name: `Logs of ${name}` }).click();
  const dialog = page.getByRole('dialog', { name: 'Logs' });
  return { dialog, box: dialog.getByLabel('Log lines'), follow: dialog.getByRole('switch', { name: 'Follow' }) };
}

describe('node logs: follow, search, download', () => {
  for (const [size, viewport, theme] of [
    ['1366 px, light', DESKTOP, 'light'],
    ['390 px, dark', PHONE, 'dark'],
  ] as const) {
    it(`follows a node's new lines, searches the shown ones and downloads the last ${LOG_TAIL_MAX}, redacted, at ${size}`, async () => {
      const user = await createTestUser(app.server, { credits: 20 });
      await user.client
        .from('profiles')
        .update({ darkmode_enabled: theme === 'dark' })
        .eq('id', user.id);
      const name = `logs-${theme}`;
      const id = await liveService(user, name);
      const { page, errors } = await app.newPage(viewport);
      await signIn(page, app.url, user.email, user.password);
      await expect.poll(() => page.evaluate(() => document.documentElement.classList.contains('dark'))).toBe(theme === 'dark');
      // The page's clock is the test's from here: following reads when the test moves it on.
      await page.clock.install();

      // Running for 8 hours: 960 heartbeats, more than the dialog's 200 lines, fewer than a download's 1,000.
      await runningFor(id, 8 * 3600);
      const { dialog, box, follow } = await openLogs(page, `${app.url}/dashboard/services/${id}`, name);
      await box
        .getByText(/heartbeat \d+: synced/)
        .first()
        .waitFor();
      const opened = await box.innerText();
      expect(opened.split('\n')).toHaveLength(200);
      await expect(follow.getAttribute('aria-checked')).resolves.toBe('false');
      // The tools fit one row, on a phone too.
      const middles = await Promise.all(
        [follow, dialog.getByRole('button', { name: 'Refresh' }), dialog.getByRole('button', { name: 'Download' })].map(async (tool) => {
          const box = (await tool.boundingBox())!;
          return Math.round(box.y + box.height / 2);
        }),
      );
      expect(Math.max(...middles) - Math.min(...middles)).toBeLessThanOrEqual(2);

      // Search: the shown lines holding the text, whatever its case, each occurrence marked.
      const search = dialog.getByLabel('Search the shown lines');
      await search.fill('HEARTBEAT 90');
      await dialog.getByRole('status').getByText('10 lines of 200 match').waitFor();
      const found = (await box.innerText()).split('\n');
      expect(found).toHaveLength(10);
      for (const [i, line] of found.entries()) expect(line).toMatch(new RegExp(`heartbeat 90${i}: synced`));
      await expect(box.locator('mark').allInnerTexts()).resolves.toEqual(Array(10).fill('heartbeat 90'));
      expect(await seriousViolations(page)).toEqual([]);
      // As plain text: a dot is a dot, and a bracket is no error.
      await search.fill('heartbeat 9.0');
      await dialog.getByRole('status').getByText('No shown line matches "heartbeat 9.0"').waitFor();
      await expect(box.count()).resolves.toBe(0);
      await search.fill('[(');
      await dialog.getByRole('status').getByText('No shown line matches "[("').waitFor();
      await search.fill('');
      await expect.poll(async () => (await box.innerText()).split('\n').length).toBe(200);

      // Download: the last 1,000 lines from the server, not the 200 shown; the banner's key redacted.
      const [download] = await Promise.all([page.waitForEvent('download'), dialog.getByRole('button', { name: 'Download' }).click()]);
      expect(download.suggestedFilename()).toBe(`${name}-logs.txt`);
      const text = await readFile((await download.path())!, 'utf8');
      const saved = text.trimEnd().split('\n');
      expect(saved[0]).toMatch(/ NodeHarbor simulated node starting \(run 1\)$/);
      expect(saved[1]).toMatch(new RegExp(` config: key=${REDACTED}$`));
      expect(saved).toHaveLength(lastBeat(text) + 2);
      expect(lastBeat(text)).toBeGreaterThanOrEqual(lastBeat(opened));
      expect(text).not.toContain(GALA_KEY.slice(0, 12));

      // Follow: the node's next heartbeat is a second away; it shows in the open dialog, once.
      const n = lastBeat(opened);
      await app.server.deps.db.query('update nodeharbor.simulated_nodes set started_at = now() - make_interval(secs => $2) where service_id = $1', [
        id,
        n * HEARTBEAT_SECONDS + HEARTBEAT_SECONDS - 1,
      ]);
      await follow.click();
      await expect(follow.getAttribute('aria-checked')).resolves.toBe('true');
      await dialog.getByText(`Following: new lines are read every ${LOG_FOLLOW_SECONDS} seconds, for up to ${LOG_FOLLOW_MINUTES} minutes.`).waitFor();
      await expect
        .poll(
          async () => {
            await page.clock.fastForward(LOG_FOLLOW_SECONDS * 1000);
            return box.innerText();
          },
          { timeout: 20_000, interval: 250 },
        )
        .toMatch(new RegExp(`heartbeat ${n + 1}: synced, 8 peers$`));
      const followed = (await box.innerText()).split('\n');
      expect(followed.filter((l) => l.includes(`heartbeat ${n}:`))).toHaveLength(1);
      expect(followed).toHaveLength(201);
      // Told to a screen reader as a count, not read out line by line.
      await dialog.getByRole('status').getByText('1 new line', { exact: true }).waitFor({ state: 'attached' });

      // Bounded: it stops by itself, says so, and follows again on request, focus on the switch.
      await page.clock.fastForward(LOG_FOLLOW_MINUTES * 60_000);
      await dialog.getByRole('status').getByText(`Following stopped after ${LOG_FOLLOW_MINUTES} minutes.`).waitFor();
      await expect(follow.getAttribute('aria-checked')).resolves.toBe('false');
      expect(await seriousViolations(page)).toEqual([]);
      await dialog.getByRole('button', { name: 'Follow again' }).click();
      await expect(follow.getAttribute('aria-checked')).resolves.toBe('true');
      await expect.poll(() => follow.evaluate((el) => el === document.activeElement)).toBe(true);
      await expect(dialog.getByRole('button', { name: 'Follow again' }).count()).resolves.toBe(0);
      await follow.click();
      await expect(dialog.getByText('Following: new lines', { exact: false }).count()).resolves.toBe(0);
      expect(errors).toEqual([]);
    });
  }

  it('says why a download or a follow failed, tells of skipped lines, and stops reading when closed', async () => {
    const user = await createTestUser(app.server, { credits: 20 });
    const id = await liveService(user, 'logs-fail');
    const { page, errors } = await app.newPage(DESKTOP);
    await signIn(page, app.url, user.email, user.password);
    await page.clock.install();
    await runningFor(id, 3600);
    const reads: Record<string, unknown>[] = [];
    page.on('request', (r) => {
      if (new URL(r.url()).pathname === '/functions/v1/node-logs') reads.push(r.postDataJSON() as Record<string, unknown>);
    });
    const { dialog, box, follow } = await openLogs(page, `${app.url}/dashboard/services/${id}`, 'logs-fail');
    await box.getByText(/heartbeat 120: synced/).waitFor();
    expect(reads).toEqual([{ service_id: id }]);

    /** Answers the reads `which` picks out with `answer`, and lets the others through to the server. */
    const intercept = (which: (body: Record<string, unknown>) => boolean, answer: (r: Route) => Promise<void>) =>
      page.route('**/functions/v1/node-logs', (r) => (which(r.request().postDataJSON() as Record<string, unknown>) ? answer(r) : r.continue()));
    const downloads = (b: Record<string, unknown>) => b.tail === LOG_TAIL_MAX;
    const follows = (b: Record<string, unknown>) => typeof b.since === 'string';

    // The server's own refusal of a download, held on its way to show the button busy; then a failure without one.
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    await intercept(downloads, async (r) => {
      await held;
      await answerJson(429, { error: 'Too many log downloads. Please try again in 42 seconds.' })(r);
    });
    await dialog.getByRole('button', { name: 'Download' }).click();
    await expect(dialog.getByRole('button', { name: 'Downloading...' }).isDisabled()).resolves.toBe(true);
    release();
    await dialog.getByRole('alert').getByText('Too many log downloads. Please try again in 42 seconds.').waitFor();
    await expect(dialog.getByRole('button', { name: 'Download' }).isEnabled()).resolves.toBe(true);
    await page.unroute('**/functions/v1/node-logs');
    await intercept(downloads, (r) => r.fulfill({ status: 500, contentType: 'text/plain', body: 'upstream down' }));
    await dialog.getByRole('button', { name: 'Download' }).click();
    await dialog.getByRole('alert').getByText('The logs could not be downloaded. Please try again.').waitFor();
    await page.unroute('**/functions/v1/node-logs');

    // A follow the server refuses stops, says why, and offers to follow again.
    await intercept(follows, answerJson(429, { error: 'Too many log requests. Please try again in 30 seconds.' }));
    await follow.click();
    await dialog.getByRole('alert').getByText('Following stopped: Too many log requests. Please try again in 30 seconds.').waitFor();
    await expect(follow.getAttribute('aria-checked')).resolves.toBe('false');
    await page.unroute('**/functions/v1/node-logs');

    // More lines than a read holds came since the last one: the new ones show, with a note of the gap.
    const burst = `${new Date(Date.now() + 60_000).toISOString()} a burst of output`;
    await intercept(follows, answerJson(200, { lines: [burst], gap: true }));
    await dialog.getByRole('button', { name: 'Follow again' }).click();
    await dialog
      .getByText(`Some lines came faster than they can be followed and are not shown. Download has the last ${LOG_TAIL_MAX.toLocaleString('en-US')}.`)
      .waitFor();
    await expect.poll(async () => (await box.innerText()).split('\n').at(-1)).toBe(burst);
    // The next read goes on from the burst's time.
    await page.clock.fastForward(LOG_FOLLOW_SECONDS * 1000);
    await expect.poll(() => reads.at(-1)).toEqual({ service_id: id, since: burst.split(' ')[0] });
    await page.unroute('**/functions/v1/node-logs');

    // Closed while following: no read after it, however long the page stays open.
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    const count = reads.length;
    for (let i = 0; i < 4; i++) await page.clock.fastForward(LOG_FOLLOW_SECONDS * 1000);
    await page.clock.fastForward(LOG_FOLLOW_MINUTES * 60_000);
    expect(reads.slice(count)).toEqual([]);
    // The failed reads above are the browser's own console errors for the routed 429 and 500.
    expect(errors.filter((e) => !/status of (429|500)/.test(e))).toEqual([]);
  });
});
