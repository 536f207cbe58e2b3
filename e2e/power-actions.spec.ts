import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createJobDeps } from '../src/server/jobs/app-worker';
import { powerNode } from '../src/server/jobs/tasks/power-node';
import type { JobDeps } from '../src/server/jobs/task';
import { installNode } from '../src/server/provisioning/install-node';
import { sweepNodes } from '../src/server/provisioning/node-monitor';
import { powerConfirm, powerMessages, powerTexts, POWER_ACTIONS_PER_HOUR, POWER_LOAD_FAILED } from '../src/shared/power-actions';
import { forceServiceState } from '../test/helpers/service-state';
import { createTestUser, GALA_KEY, TOWN_STAR, type TestUser } from '../test/helpers/users';
import { openSection } from './dashboard-helpers';
import { expectAccessibleIn } from './helpers/axe';
import { expectToast, holdRequests, serverError } from './helpers/page-tools';
import { signIn, startApp, type TestApp, type Viewport } from './helpers/app';

// Restart, Stop and Start on the service page and in the admin's fleet (issue 36, item 1): the
// confirmations, the toasts, the server's refusals as it words them, the events, at a laptop's and
// a phone's width, in both themes, with nothing serious for axe.

/** A common laptop and a common phone (issue 17). */
const LAPTOP: Viewport = { width: 1366, height: 850 };
const PHONE: Viewport = { width: 390, height: 844 };
const THEMES = ['light', 'dark'] as const;

let app: TestApp;
let deps: JobDeps;
beforeAll(async () => {
  // No worker: the test runs the power job and the monitor's sweep itself, so that each state
  // shows when it says; a sweep sees every node of the server, so the server is this file's own.
  app = await startApp({ RUN_WORKER: 'false' });
  deps = await createJobDeps(app.server.deps);
});
afterAll(() => app?.stop());

async function liveService(user: TestUser, name: string): Promise<string> {
  const { data, error } = await user.client.rpc('create_service_securely', { p_name: name, p_description: null, p_api_key: GALA_KEY, p_product_id: TOWN_STAR });
  if (error) throw error;
  const id = (data as { id: string }).id;
  await installNode(deps, id);
  return id;
}

async function userIn(theme: (typeof THEMES)[number], opts: { admin?: boolean } = {}): Promise<TestUser> {
  const user = await createTestUser(app.server, { credits: 50, ...opts });
  const { error } = await user.client
    .from('profiles')
    .update({ darkmode_enabled: theme === 'dark' })
    .eq('id', user.id);
  if (error) throw error;
  return user;
}

const button = (page: Page, action: 'restart' | 'stop' | 'start', name: string) =>
  page.getByRole('button', { name: `${powerTexts[action].label} ${name}`, exact: true });

describe('power actions on the service page', () => {
  for (const viewport of [LAPTOP, PHONE]) {
    for (const theme of THEMES) {
      it(`restarts, stops and starts a node with its owner's confirmation, at ${viewport.width} px in the ${theme} theme`, async () => {
        const user = await userIn(theme);
        const name = `pw-${viewport.width}-${theme}`.slice(0, 16);
        const id = await liveService(user, name);
        await sweepNodes(deps);
        const { page, errors } = await app.newPage(viewport);
        await signIn(page, app.url, user.email, user.password);
        await page.goto(`${app.url}/dashboard/services/${id}`);
        const header = page.getByRole('region', { name });
        const events = page.getByRole('region', { name: 'Event history' });
        await header.getByText('Online', { exact: true }).waitFor();

        // First among the service's actions: before Logs, Rename and the rest.
        const names = await header.getByRole('button').evaluateAll((all) => all.map((b) => b.getAttribute('aria-label') ?? b.textContent ?? ''));
        const first = names.indexOf(`Restart ${name}`);
        expect(first).toBeGreaterThanOrEqual(0);
        expect(names.slice(first, first + 3)).toEqual([`Restart ${name}`, `Stop ${name}`, `Logs of ${name}`]);
        await expectAccessibleIn(page, theme, 'the service page');

        // Restart asks first.
        await button(page, 'restart', name).click();
        const restart = page.getByRole('dialog', { name: powerConfirm.restart.title(name) });
        await restart.getByText(powerConfirm.restart.description).waitFor();
        await expectAccessibleIn(page, theme, 'the Restart dialog');
        await restart.getByRole('button', { name: powerConfirm.restart.confirm }).click();
        await expectToast(page, powerTexts.restart.done, powerTexts.restart.doneText(name));
        await restart.waitFor({ state: 'hidden' });
        await events.getByText('Restarted by you').waitFor();

        // Stop says that the paid period keeps running; Cancel changes nothing.
        await button(page, 'stop', name).click();
        const stop = page.getByRole('dialog', { name: powerConfirm.stop.title(name) });
        await stop.getByText(powerConfirm.stop.description).waitFor();
        await expect(stop.innerText()).resolves.toContain('Your paid period keeps running');
        await expectAccessibleIn(page, theme, 'the Stop dialog');
        await stop.getByRole('button', { name: 'Cancel' }).click();
        await stop.waitFor({ state: 'hidden' });
        await expect(events.getByText('Stopped by you').count()).resolves.toBe(0);
        await button(page, 'stop', name).click();
        await stop.getByRole('button', { name: powerConfirm.stop.confirm }).click();
        await expectToast(page, powerTexts.stop.done, powerTexts.stop.doneText(name));
        await button(page, 'start', name).waitFor();
        await expect(button(page, 'restart', name).count()).resolves.toBe(0);
        await expect(button(page, 'stop', name).count()).resolves.toBe(0);
        await events.getByText('Stopped by you').waitFor();

        // The worker's part and the monitor's next look: the node shows Stopped, not Offline.
        await powerNode.run({ serviceId: id, action: 'stop' }, deps);
        await sweepNodes(deps);
        await page.reload();
        await header.getByText('Stopped', { exact: true }).waitFor();
        await expect(header.getByText('Offline', { exact: true }).count()).resolves.toBe(0);
        await expectAccessibleIn(page, theme, 'a stopped node, with its toast');

        // Start asks nothing: it takes nothing down.
        await button(page, 'start', name).click();
        await expectToast(page, powerTexts.start.done, powerTexts.start.doneText(name));
        await button(page, 'restart', name).waitFor();
        // A pattern, not a string: a string would find it in "Restarted by you" too (any case).
        await events.getByText(/Started by you/).waitFor();
        expect(errors).toEqual([]);
      });
    }
  }

  it("shows the server's refusals in its words, a lost request, the pending state, and a state that allows nothing", async () => {
    const user = await userIn('light');
    const id = await liveService(user, 'pw-refused');
    const { page, context } = await app.newPage(LAPTOP);
    await signIn(page, app.url, user.email, user.password);
    await page.goto(`${app.url}/dashboard/services/${id}`);
    const header = page.getByRole('region', { name: 'pw-refused' });
    await button(page, 'stop', 'pw-refused').waitFor();

    // Stopped elsewhere (another tab, an admin) since the page read it: refused, and the page then offers Start.
    expect((await user.client.rpc('service_power_action', { p_service_id: id, p_action: 'stop' })).error).toBeNull();
    await button(page, 'stop', 'pw-refused').click();
    await page.getByRole('dialog').getByRole('button', { name: powerConfirm.stop.confirm }).click();
    await expectToast(page, powerMessages.alreadyStopped);
    await button(page, 'start', 'pw-refused').waitFor();

    // A request that never reaches the server: the generic words.
    await context.route('**/rest/v1/rpc/service_power_action', (r) => r.abort());
    await button(page, 'start', 'pw-refused').click();
    await expectToast(page, powerTexts.start.failed);
    await context.unroute('**/rest/v1/rpc/service_power_action');

    // A slow answer: the button says what it is doing.
    const release = await holdRequests(page, '**/rest/v1/rpc/service_power_action');
    await button(page, 'start', 'pw-refused').click();
    await header.getByRole('button', { name: 'Start pw-refused' }).getByText(powerTexts.start.pending).waitFor();
    release();
    await expectToast(page, powerTexts.start.done, powerTexts.start.doneText('pw-refused'));
    await page.unroute('**/rest/v1/rpc/service_power_action');

    // The hourly limit: 10 already taken (2 above), the next is refused with the wait.
    for (let i = 2; i < POWER_ACTIONS_PER_HOUR; i++) {
      const { error } = await user.client.rpc('service_power_action', { p_service_id: id, p_action: i % 2 ? 'start' : 'stop' });
      expect(error).toBeNull();
    }
    await page.reload();
    await button(page, 'restart', 'pw-refused').click();
    await page.getByRole('dialog').getByRole('button', { name: powerConfirm.restart.confirm }).click();
    await expectToast(page, powerMessages.tooMany(60));
    await expect(page.getByRole('region', { name: 'Event history' }).getByText('Restarted by you').count()).resolves.toBe(0);

    // What the worker and a resumption may record, in words: written here as they would.
    await app.server.deps.db.query(`select private.record_service_event($1, 'power_failed', '{"action": "restart", "error": "engine down"}')`, [id]);
    await app.server.deps.db.query(`select private.record_service_event($1, 'power_kept_stopped')`, [id]);
    await page.reload();
    const events = page.getByRole('region', { name: 'Event history' });
    await events.getByText('The node could not be restarted').waitFor();
    await events.getByText('Kept stopped, as it was stopped on request: start it to run it again').waitFor();

    // Suspended or expired: Start is there but disabled, saying why.
    for (const [state, message] of [
      ['suspended', powerMessages.suspended],
      ['expired', powerMessages.expired],
    ] as const) {
      await forceServiceState(app.server.deps.db, state, 'id = $1', id, `terminates_at = ${state === 'suspended' ? `now() + interval '14 days'` : 'null'}`);
      await page.reload();
      await expect(button(page, 'start', 'pw-refused').isDisabled()).resolves.toBe(true);
      await header.getByLabel(message).waitFor();
      await expect(button(page, 'stop', 'pw-refused').count()).resolves.toBe(0);
    }
    // Failed or installing: no power actions at all.
    await forceServiceState(app.server.deps.db, 'failed', 'id = $1', id);
    await page.reload();
    await header.getByText('Installation failed', { exact: true }).waitFor();
    await expect(button(page, 'start', 'pw-refused').count()).resolves.toBe(0);
    await expect(button(page, 'restart', 'pw-refused').count()).resolves.toBe(0);
  });

  it('says so when the power state cannot be read', async () => {
    const user = await userIn('light');
    const id = await liveService(user, 'pw-unread');
    const { page } = await app.newPage(LAPTOP);
    await signIn(page, app.url, user.email, user.password);
    // A failing database's answer (a lost one is retried by supabase-js for half a minute first).
    await page.route((u) => u.pathname === '/rest/v1/service_power', serverError);
    await page.goto(`${app.url}/dashboard/services/${id}`);
    await page.getByRole('region', { name: 'pw-unread' }).getByRole('alert').getByText(POWER_LOAD_FAILED).waitFor({ timeout: 30_000 });
    await expect(button(page, 'restart', 'pw-unread').count()).resolves.toBe(0);
  });
});

describe("power actions in the admin's fleet", () => {
  for (const [viewport, theme] of [
    [LAPTOP, 'light'],
    [LAPTOP, 'dark'],
    [PHONE, 'dark'],
  ] as const) {
    it(`stops and starts another user's node, told to its owner as an admin's, at ${viewport.width} px in the ${theme} theme`, async () => {
      const owner = await userIn('light');
      const name = `fl-${viewport.width}-${theme}`.slice(0, 16);
      const id = await liveService(owner, name);
      const admin = await userIn(theme, { admin: true });
      const { page, errors } = await app.newPage(viewport);
      await signIn(page, app.url, admin.email, admin.password);
      await openSection(page, 'Admin Dashboard');
      await page.getByRole('tab', { name: 'Fleet' }).click();
      const fleet = page.getByRole('region', { name: 'Fleet' });
      const row = fleet.getByRole('row').filter({ has: page.getByRole('cell', { name, exact: true }) });
      await row.getByRole('button', { name: `Restart ${name}` }).waitFor();

      await row.getByRole('button', { name: `Stop ${name}` }).click();
      const stop = page.getByRole('dialog', { name: powerConfirm.stop.title(name) });
      await stop.getByText(powerConfirm.stop.description).waitFor();
      await expectAccessibleIn(page, theme, 'the fleet with the Stop dialog');
      await stop.getByRole('button', { name: powerConfirm.stop.confirm }).click();
      await expectToast(page, powerTexts.stop.done, powerTexts.stop.doneText(name));
      // The fleet is read again: the row offers Start.
      await row.getByRole('button', { name: `Start ${name}` }).waitFor();
      await expectAccessibleIn(page, theme, 'the fleet after a stop');
      await row.getByRole('button', { name: `Start ${name}` }).click();
      await expectToast(page, powerTexts.start.done, powerTexts.start.doneText(name));
      await row.getByRole('button', { name: `Stop ${name}` }).waitFor();
      expect(errors).toEqual([]);

      // The owner reads who did it.
      const own = await app.newPage(LAPTOP);
      await signIn(own.page, app.url, owner.email, owner.password);
      await own.page.goto(`${app.url}/dashboard/services/${id}`);
      const events = own.page.getByRole('region', { name: 'Event history' });
      await events.getByText('Stopped by an admin').waitFor();
      await events.getByText(/Started by an admin/).waitFor();
    });
  }
});
