import { afterAll, beforeAll, expect, it } from 'vitest';
import { TEST_PAYMENTS_NOTICE } from '../src/shared/test-payments';
import { createTestUser } from '../test/helpers/users';
import { sharedApp, signIn, startApp, type TestApp } from './helpers/app';

// Issue 33, item 2: the free test provider, chosen on purpose, is announced on every page.
let chosen: TestApp;
let plain: TestApp;
beforeAll(async () => {
  // A server of its own: PAYMENTS_PROVIDER=test is a setting no other spec asks for.
  chosen = await startApp({ PAYMENTS_PROVIDER: 'test' });
  plain = await sharedApp();
});
afterAll(() => chosen?.stop());

it('says "TEST PAYMENTS: credit is free" on every page when PAYMENTS_PROVIDER=test is chosen', async () => {
  const user = await createTestUser(chosen.server);
  const { page } = await chosen.newPage();
  const banner = page.getByRole('status').filter({ hasText: TEST_PAYMENTS_NOTICE });
  for (const path of ['/', '/about', '/login', '/no-such-page']) {
    await page.goto(`${chosen.url}${path}`);
    await banner.waitFor();
  }
  await signIn(page, chosen.url, user.email, user.password);
  for (const path of ['/dashboard', '/dashboard/billing']) {
    await page.goto(`${chosen.url}${path}`);
    await page.getByRole('heading', { level: 1 }).first().waitFor();
    await banner.waitFor();
  }
  // On a development host too, whose block replaces the whole site.
  await page.goto(`${chosen.devUrl}/about`);
  await page.getByRole('heading', { name: 'Development Access Required' }).waitFor();
  await banner.waitFor();
});

it('shows no banner when the test provider runs by default, on loopback only', async () => {
  const user = await createTestUser(plain.server);
  const { page } = await plain.newPage();
  // The dashboard needs the run-time config, so it has been read once the dashboard shows.
  await signIn(page, plain.url, user.email, user.password);
  await page.getByRole('heading', { level: 1 }).first().waitFor();
  expect(await page.getByText(TEST_PAYMENTS_NOTICE).count()).toBe(0);
});
