import { beforeAll, describe, expect, it } from 'vitest';
import { createTestUser, GALA_KEY, TOWN_STAR } from '../test/helpers/users';
import { openMenu, openSection } from './dashboard-helpers';
import { sharedApp, signIn, type TestApp, type Viewport } from './helpers/app';

const DESKTOP = { width: 1366, height: 850 } as const;
const PHONE = { width: 390, height: 844 } as const;

let app: TestApp;
beforeAll(async () => {
  app = await sharedApp();
});

describe.each([
  ['desktop', DESKTOP],
  ['phone', PHONE],
] as [string, Viewport][])('pages that remember (%s)', (_, viewport) => {
  it('keeps the settings tab and the services layout across a reload', async () => {
    const user = await createTestUser(app.server, { credits: 10 });
    const { error } = await user.client.rpc('create_service_securely', { p_name: 'kept-1', p_description: null, p_api_key: GALA_KEY, p_product_id: TOWN_STAR });
    if (error) throw error;
    const { page, errors } = await app.newPage(viewport);
    await signIn(page, app.url, user.email, user.password);

    await openSection(page, 'Settings');
    await page.getByRole('tab', { name: 'Security' }).click();
    await page.waitForURL(`${app.url}/dashboard/settings/security`);
    await page.reload();
    await expect.poll(() => page.getByRole('tab', { name: 'Security' }).getAttribute('aria-selected')).toBe('true');
    await page.getByRole('heading', { level: 1, name: 'Settings' }).waitFor();
    // On a phone the sections are in the Menu drawer.
    const nav = viewport.width < 768 ? await openMenu(page) : page.getByRole('navigation', { name: 'Dashboard' });
    await expect(nav.getByRole('link', { name: 'Settings' }).getAttribute('aria-current')).resolves.toBe('page');
    if (viewport.width < 768) await page.keyboard.press('Escape');
    await page.getByRole('tab', { name: 'General' }).click();
    await page.waitForURL(`${app.url}/dashboard/settings`);
    await page.getByRole('region', { name: 'Preferences' }).waitFor();
    // An address naming no tab shows the plain page.
    await page.goto(`${app.url}/dashboard/settings/nothing`);
    await page.waitForURL(`${app.url}/dashboard/settings`);
    await expect(page.getByRole('tab', { name: 'General' }).getAttribute('aria-selected')).resolves.toBe('true');

    await openSection(page, 'Services');
    await page.getByRole('article', { name: 'kept-1' }).waitFor();
    await expect(page.getByRole('button', { name: 'List view' }).getAttribute('aria-pressed')).resolves.toBe('true');
    await page.getByRole('button', { name: 'Grid view' }).click();
    await page.reload();
    await page.getByRole('article', { name: 'kept-1' }).waitFor();
    await expect(page.getByRole('button', { name: 'Grid view' }).getAttribute('aria-pressed')).resolves.toBe('true');
    await page.getByRole('button', { name: 'List view' }).click();
    await page.reload();
    await page.getByRole('article', { name: 'kept-1' }).waitFor();
    await expect(page.getByRole('button', { name: 'List view' }).getAttribute('aria-pressed')).resolves.toBe('true');
    expect(errors).toEqual([]);
  });

  it('previews the chosen language and time zone before Save', async () => {
    const user = await createTestUser(app.server);
    const { page, errors } = await app.newPage(viewport);
    await signIn(page, app.url, user.email, user.password);
    await openSection(page, 'Settings');
    const sample = page.getByTestId('format-sample');
    // The minute may turn between the page's rendering and the test's reckoning: either is right.
    const shown = (language: string, timeZone: string) => {
      const at = (t: number) =>
        `${new Intl.DateTimeFormat(language, { dateStyle: 'medium', timeStyle: 'short', timeZone }).format(t)} · ${new Intl.NumberFormat(language, { style: 'currency', currency: 'USD' }).format(1234.5)}`;
      return [at(Date.now() - 60_000), at(Date.now())];
    };
    await expect.poll(async () => shown('en-US', 'UTC').includes(await sample.innerText())).toBe(true);
    await page.getByLabel('Language').selectOption('de');
    await expect.poll(async () => shown('de', 'UTC').includes(await sample.innerText())).toBe(true);
    await page.getByLabel('Time zone').selectOption('Asia/Tokyo');
    await expect.poll(async () => shown('de', 'Asia/Tokyo').includes(await sample.innerText())).toBe(true);
    await page.getByText('Dates and amounts will look like:').waitFor();
    // Nothing is saved until Save: a reload shows the saved choice again.
    await page.reload();
    await expect.poll(async () => shown('en-US', 'UTC').includes(await sample.innerText())).toBe(true);
    expect(errors).toEqual([]);
  });
});

describe('footer', () => {
  it('has the current year', async () => {
    const { page } = await app.newPage(PHONE);
    await page.goto(`${app.url}/about`);
    await page.getByText(`© ${new Date().getFullYear()} NodeHarbor. All rights reserved.`).waitFor();
  });
});
