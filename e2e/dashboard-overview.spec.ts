import { beforeAll, describe, expect, it } from 'vitest';
import { createTestUser, GALA_KEY, TOWN_STAR } from '../test/helpers/users';
import { openMenu, openSection } from './dashboard-helpers';
import { seriousViolations } from './helpers/axe';
import { expectText } from './helpers/page-tools';
import { DESKTOP, MOBILE, sharedApp, signIn, type TestApp } from './helpers/app';

let app: TestApp;
beforeAll(async () => {
  app = await sharedApp();
});

describe('dashboard overview and layout', () => {
  it('shows the overview of a new account, its guide and real support links', async () => {
    const user = await createTestUser(app.server, { credits: 7.5, fullName: 'Mary Somerville' });
    const { page, errors } = await app.newPage(DESKTOP);
    await signIn(page, app.url, user.email, user.password);
    await page.getByRole('heading', { level: 1, name: 'Dashboard' }).waitFor();
    await page.getByRole('group', { name: 'Billing Status' }).getByText('$7.50').waitFor();
    await expect.poll(() => page.getByRole('group', { name: 'Total Services' }).innerText()).toContain('0');
    await expect.poll(() => page.getByRole('group', { name: 'Next Payment' }).innerText()).toContain('No scheduled payments');
    await page.getByRole('heading', { name: 'Get Started' }).waitFor();
    await page.getByRole('heading', { name: 'Quick-start guide' }).waitFor();
    const hrefs = await Promise.all(
      ['Gala API key guide', 'Master Node License Key guide', 'Frequently asked questions', 'Contact support'].map((name) =>
        page.getByRole('link', { name }).getAttribute('href'),
      ),
    );
    expect(hrefs).toEqual(['/gala-hosting/api-key', '/playa3ull-hosting/license-key', '/#faq-heading', '/contact']);
    // The dashboard has its own layout: no public header or footer.
    await expect(page.getByRole('contentinfo').count()).resolves.toBe(0);
    expect(await seriousViolations(page)).toEqual([]);
    await page.getByRole('link', { name: 'Contact support' }).click();
    await page.waitForURL(/\/contact$/);
    await expectText(page, 'Get in Touch');
    expect(errors).toEqual([]);
  });

  it('collapses the sidebar to icons on a wide screen, keeping the names for assistive technology', async () => {
    const user = await createTestUser(app.server);
    const { page, errors } = await app.newPage(DESKTOP);
    await signIn(page, app.url, user.email, user.password);
    const nav = page.getByRole('navigation', { name: 'Dashboard' });
    const width = async () => (await nav.boundingBox())?.width ?? 0;
    const collapse = page.getByRole('button', { name: 'Collapse sidebar' });
    await expect(collapse.getAttribute('aria-expanded')).resolves.toBe('true');
    await expect.poll(width).toBeGreaterThan(200);
    await collapse.click();
    const expand = page.getByRole('button', { name: 'Expand sidebar' });
    await expect(expand.getAttribute('aria-expanded')).resolves.toBe('false');
    // Icons only (once the width's transition has ended); the links keep their names.
    await expect.poll(width).toBeLessThan(80);
    await openSection(page, 'Billing');
    await expand.click();
    await expect.poll(width).toBeGreaterThan(200);
    expect(errors).toEqual([]);
  });

  it('has no serious accessibility violation in any section on a phone', async () => {
    const user = await createTestUser(app.server, { credits: 10 });
    // A service, so that the Services page shows a card with its masked key.
    await user.client.rpc('create_service_securely', { p_name: 'wide-key', p_description: null, p_api_key: GALA_KEY, p_product_id: TOWN_STAR });
    const { page, errors } = await app.newPage(MOBILE);
    await signIn(page, app.url, user.email, user.password);
    for (const section of ['Services', 'Billing', 'Settings', 'Account', 'Dashboard'] as const) {
      await openSection(page, section);
      await page.waitForLoadState('networkidle');
      expect(await seriousViolations(page), section).toEqual([]);
    }
    await openMenu(page);
    expect(await seriousViolations(page), 'the open drawer').toEqual([]);
    expect(errors).toEqual([]);
  });
});
