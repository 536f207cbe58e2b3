import { beforeAll, describe, expect, it } from 'vitest';
import { createTestUser, GALA_KEY, TOWN_STAR } from '../test/helpers/users';
import { openSection } from './dashboard-helpers';
import { sharedApp, signIn, type TestApp } from './helpers/app';

const DESKTOP = { width: 1366, height: 850 } as const;
const PHONE = { width: 390, height: 844 } as const;

let app: TestApp;
beforeAll(async () => {
  app = await sharedApp();
});

describe('page titles', () => {
  it('names every dashboard route, a service by its name, and the admin page', async () => {
    const user = await createTestUser(app.server, { admin: true, credits: 10 });
    const { data, error } = await user.client.rpc('create_service_securely', {
      p_name: 'node-1',
      p_description: null,
      p_api_key: GALA_KEY,
      p_product_id: TOWN_STAR,
    });
    if (error) throw error;
    const { page, errors } = await app.newPage(DESKTOP);
    await signIn(page, app.url, user.email, user.password);
    await expect.poll(() => page.title()).toBe('Dashboard | NodeHarbor');
    for (const section of ['Services', 'Billing', 'Settings', 'Account', 'Dashboard', 'Admin Dashboard'] as const) {
      await openSection(page, section);
      await expect.poll(() => page.title()).toBe(`${section} | NodeHarbor`);
    }

    // Loaded straight from the address, not reached through the app.
    await page.goto(`${app.url}/dashboard/services/${(data as { id: string }).id}`);
    await page.getByRole('region', { name: 'node-1' }).waitFor();
    await expect.poll(() => page.title()).toBe('node-1 | NodeHarbor');
    await page.getByRole('link', { name: 'Back to Services' }).click();
    await expect.poll(() => page.title()).toBe('Services | NodeHarbor');
    await page.goto(`${app.url}/dashboard/services/not-a-service`);
    await page.getByRole('heading', { name: 'Service not found' }).waitFor();
    await expect.poll(() => page.title()).toBe('Service not found | NodeHarbor');
    await page.goto(`${app.url}/dashboard/settings/security`);
    await expect.poll(() => page.title()).toBe('Settings | NodeHarbor');
    expect(errors).toEqual([]);
  });

  it('names /login when a guarded page sends a signed-out visitor there', async () => {
    const { page, errors } = await app.newPage(PHONE);
    await page.goto(`${app.url}/dashboard/billing`);
    await page.waitForURL(`${app.url}/login`);
    await expect.poll(() => page.title()).toBe('Sign In | NodeHarbor');
    expect(errors).toEqual([]);
  });
});
