import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { createJobDeps } from '../src/server/jobs/app-worker';
import type { JobDeps } from '../src/server/jobs/task';
import { installNode } from '../src/server/provisioning/install-node';
import { autoRenewMessages, autoRenewTexts } from '../src/shared/auto-renew';
import { forceServiceState } from '../test/helpers/service-state';
import { createService, createTestUser, type TestUser } from '../test/helpers/users';
import { openSection } from './dashboard-helpers';
import { seriousViolations } from './helpers/axe';
import { expectToast } from './helpers/page-tools';
import { sharedApp, signIn, type TestApp, type Viewport } from './helpers/app';

// "Renew automatically" (issue 36, item 4): the switch on the service page, "Ends in N days" on the
// card and the page, Next Payment without the services that will not renew, the event history, the
// refusals, and the end of the period; at a laptop's and a phone's width, in both themes.

const DESKTOP: Viewport = { width: 1366, height: 850 };
const PHONE: Viewport = { width: 390, height: 844 };
const VIEWPORTS = [
  ['1366 px', DESKTOP],
  ['390 px', PHONE],
] as const;
const THEMES = ['light', 'dark'] as const;

let app: TestApp;
let deps: JobDeps;
beforeAll(async () => {
  // The test installs nodes and runs the renewal itself, through the worker's own code, when it says.
  app = await sharedApp({ RUN_WORKER: 'false' });
  deps = await createJobDeps(app.server.deps);
});

/** A running Town Star service whose paid period ends in `days` days (and an hour, so that it reads "in N days"). */
async function activeService(user: TestUser, name: string, days: number): Promise<{ id: string; day: string }> {
  const id = await createService(user, name);
  await installNode(deps, id);
  const { rows } = await app.server.deps.db.query<{ renews_at: Date }>(
    `update private.services set renews_at = now() + make_interval(days => $2, hours => 1) where id = $1 returning renews_at`,
    [id, days],
  );
  // As the dashboard writes a date for a user who chose no language or time zone.
  return { id, day: new Intl.DateTimeFormat('en-US', { dateStyle: 'medium', timeZone: 'UTC' }).format(rows[0]!.renews_at) };
}

const header = (page: Page, name: string) => page.getByRole('region', { name });
const toggle = (page: Page) => page.getByRole('switch', { name: autoRenewTexts.label });
const history = (page: Page) => page.getByRole('region', { name: 'Event history' }).getByRole('listitem');
// Each line is its time, then the event in words.
const firstEvent = async (page: Page) => (await history(page).first().innerText()).replace(/^.*\d{1,2}:\d{2}\s?(AM|PM)?\s*/, '');
const nextPayment = (page: Page) => expect.poll(() => page.getByRole('group', { name: 'Next Payment' }).innerText(), { timeout: 10_000 });
const noOverflow = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);

describe('Renew automatically', () => {
  it.each(VIEWPORTS)('is switched on the service page, and the card, the page and Next Payment follow, at %s', async (_label, viewport) => {
    const user = await createTestUser(app.server, { credits: 30 });
    const soon = await activeService(user, 'ends-soon', 10);
    const later = await activeService(user, 'renews-after', 20);
    const { page, errors } = await app.newPage(viewport);
    await signIn(page, app.url, user.email, user.password);
    await nextPayment(page).toMatch(new RegExp(`\\$10\\.00\\s+ends-soon renews on ${soon.day}`));

    await openSection(page, 'Services');
    await page.getByRole('article', { name: 'ends-soon' }).getByText('Renews in 10 days', { exact: true }).waitFor();
    await page.goto(`${app.url}/dashboard/services/${soon.id}`);
    const card = header(page, 'ends-soon');
    await expect.poll(() => toggle(page).getAttribute('aria-checked')).toBe('true');
    await card.getByText(autoRenewTexts.onHint).waitFor();
    await card.getByText('Renews in 10 days', { exact: true }).waitFor();

    await toggle(page).click();
    await expectToast(page, autoRenewTexts.turnedOff, autoRenewTexts.offToast('ends-soon', soon.day));
    await card.getByText('Ends in 10 days', { exact: true }).waitFor();
    await card.getByText(autoRenewTexts.offHint).waitFor();
    await expect(toggle(page).getAttribute('aria-checked')).resolves.toBe('false');
    await expect.poll(() => firstEvent(page)).toBe(autoRenewTexts.turnedOff);
    // The switch, its words and the badge fit the phone's width.
    expect(await noOverflow(page)).toBe(true);

    // Next Payment leaves it out: the other service is next.
    await openSection(page, 'Dashboard');
    await nextPayment(page).toMatch(new RegExp(`\\$10\\.00\\s+renews-after renews on ${later.day}`));
    await openSection(page, 'Services');
    await page.getByRole('article', { name: 'ends-soon' }).getByText('Ends in 10 days', { exact: true }).waitFor();
    await page.getByRole('article', { name: 'renews-after' }).getByText('Renews in 20 days', { exact: true }).waitFor();
    expect(await noOverflow(page)).toBe(true);

    // Turned back on before the end: renews again, and says so.
    await page.getByRole('article', { name: 'ends-soon' }).getByRole('link', { name: 'ends-soon' }).click();
    await toggle(page).click();
    await expectToast(page, autoRenewTexts.turnedOn, autoRenewTexts.onToast('ends-soon', soon.day));
    await card.getByText('Renews in 10 days', { exact: true }).waitFor();
    await expect.poll(() => firstEvent(page)).toBe(autoRenewTexts.turnedOn);
    await expect(history(page).nth(1).innerText()).resolves.toContain(autoRenewTexts.turnedOff);

    // Both off: nothing is scheduled.
    await toggle(page).click();
    await expectToast(page, autoRenewTexts.turnedOff);
    const { error } = await user.client.rpc('set_service_auto_renew', { p_service_id: later.id, p_auto_renew: false });
    expect(error).toBeNull();
    await openSection(page, 'Dashboard');
    await nextPayment(page).toContain('No scheduled payments');
    expect(errors).toEqual([]);
  });

  it("tells a lost request and the server's refusal, and after the end shows the service expired, why, and Extend in place of the switch", async () => {
    const user = await createTestUser(app.server, { credits: 10 });
    const { id } = await activeService(user, 'lapses', 5);
    const { page, context, errors } = await app.newPage(DESKTOP);
    await signIn(page, app.url, user.email, user.password);
    await page.goto(`${app.url}/dashboard/services/${id}`);
    const card = header(page, 'lapses');
    await card.getByText('Renews in 5 days', { exact: true }).waitFor();

    // A request that never reaches the server: spec §8's words, and the switch as the server has it.
    await context.route('**/rest/v1/rpc/set_service_auto_renew', (r) => r.abort());
    await toggle(page).click();
    await expectToast(page, autoRenewTexts.failed);
    await expect.poll(() => toggle(page).getAttribute('aria-checked')).toBe('true');
    await context.unroute('**/rest/v1/rpc/set_service_auto_renew');

    // Expired meanwhile (the page has not read it yet): the server's refusal, then the page as it is.
    await forceServiceState(app.server.deps.db, 'expired', 'id = $1', id);
    await toggle(page).click();
    await expectToast(page, autoRenewMessages.expired);
    await card.getByText('Expired', { exact: true }).waitFor();
    await toggle(page).waitFor({ state: 'detached' });
    await forceServiceState(app.server.deps.db, 'active', 'id = $1', id);
    await page.reload();

    // Off, then the period ends: the renewal the worker runs finds the owner's word.
    await toggle(page).click();
    await expectToast(page, autoRenewTexts.turnedOff);
    await card.getByText('Ends in 5 days', { exact: true }).waitFor();
    await app.server.deps.db.query(`update private.services set renews_at = now() - interval '1 hour' where id = $1`, [id]);
    const { rows } = await app.server.deps.db.query<{ outcome: string }>('select private.renew_service($1) as outcome', [id]);
    expect(rows[0]!.outcome).toBe('ended');
    await page.reload();
    await card.getByText('Expired', { exact: true }).waitFor();
    await card.getByText('Expired 1 hour ago', { exact: true }).waitFor();
    await expect.poll(() => firstEvent(page)).toBe('Expired: automatic renewal was off');
    await expect(toggle(page).count()).resolves.toBe(0);
    // Extend, in the page's More actions, is offered: the way back.
    await card.getByRole('button', { name: 'More actions for lapses' }).click();
    await expect(page.getByRole('menuitem', { name: 'Extend lapses' }).getAttribute('aria-disabled')).resolves.toBeNull();
    await page.keyboard.press('Escape');
    // Nothing was charged for a period it did not renew.
    const { rows: charged } = await app.server.deps.db.query<{ n: number }>(
      `select count(*)::int as n from public.credit_transactions where service_id = $1 and description like 'Service renewal%'`,
      [id],
    );
    expect(charged[0]!.n).toBe(0);
    expect(errors.filter((e) => !e.includes('Failed to load resource') && !e.includes('set_service_auto_renew'))).toEqual([]);
  });

  it.each(VIEWPORTS)('leaves axe nothing serious or critical on the changed screens in both themes, at %s', async (_label, viewport) => {
    for (const theme of THEMES) {
      const user = await createTestUser(app.server, { credits: 20 });
      const { error } = await user.client
        .from('profiles')
        .update({ darkmode_enabled: theme === 'dark' })
        .eq('id', user.id);
      expect(error).toBeNull();
      const off = await activeService(user, `${theme}-off`, 10);
      await activeService(user, `${theme}-on`, 20);
      const { page, errors } = await app.newPage(viewport);
      await signIn(page, app.url, user.email, user.password);
      const check = async (where: string) => {
        await page.waitForLoadState('networkidle');
        await expect
          .poll(() => page.evaluate(() => document.documentElement.classList.contains('dark')), { message: `${theme} ${where}` })
          .toBe(theme === 'dark');
        const found = await seriousViolations(page, { experimental: true });
        expect(found, `${theme} ${where} at ${viewport.width} px:\n${found.join('\n')}`).toEqual([]);
      };

      // The service page with the switch turned off, its toast on screen.
      await page.goto(`${app.url}/dashboard/services/${off.id}`);
      await toggle(page).click();
      await expectToast(page, autoRenewTexts.turnedOff);
      await header(page, `${theme}-off`).getByText('Ends in 10 days', { exact: true }).waitFor();
      await check('the service page, renewal off');
      await toggle(page).focus();
      await check('the service page, the switch focused');

      await openSection(page, 'Services');
      await page
        .getByRole('article', { name: `${theme}-off` })
        .getByText('Ends in 10 days', { exact: true })
        .waitFor();
      await check('the services list');

      await openSection(page, 'Dashboard');
      await nextPayment(page).toMatch(new RegExp(`${theme}-on renews on`));
      await check('the overview');
      expect(errors).toEqual([]);
    }
  });
});
