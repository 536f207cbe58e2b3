import { beforeAll, expect, it } from 'vitest';
import { createTestUser } from '../test/helpers/users';
import { sharedApp, type TestApp } from './helpers/app';
import { holdRequests } from './helpers/page-tools';

const DESKTOP = { width: 1366, height: 850 } as const;
const PHONE = { width: 390, height: 844 } as const;

let app: TestApp;
beforeAll(async () => {
  app = await sharedApp();
});

it.each([
  ['1366 px', DESKTOP],
  ['390 px', PHONE],
])('a signed-out visit to /dashboard lands on /login with its form ready before any input, at %s', async (_l, viewport) => {
  const user = await createTestUser(app.server);
  const { page, errors } = await app.newPage(viewport);
  // No stir: a redirect gives no pointer move and no key press, and the form must not wait for one.
  await page.goto(`${app.url}/dashboard`);
  await page.waitForURL(/\/login$/);
  await page.getByLabel('Email').waitFor();
  await page.getByLabel('Password').waitFor();
  expect(await page.getByRole('button', { name: 'Sign In' }).isEnabled()).toBe(true);
  expect(await page.getByText('Loading...').count()).toBe(0);
  // The form is the real one: it signs in.
  await page.getByLabel('Email').fill(user.email);
  await page.getByLabel('Password').fill(user.password);
  await page.getByRole('button', { name: 'Sign In' }).click();
  await page.waitForURL(/\/dashboard$/);
  expect(errors).toEqual([]);
});

it.each([
  ['1366 px', DESKTOP],
  ['390 px', PHONE],
])('a refused reset link leads from the prerendered confirm page to /reset-password with its form ready before any input, at %s', async (_l, viewport) => {
  const { page } = await app.newPage(viewport);
  await page.goto(`${app.url}/reset-password-confirm#access_token=forged&refresh_token=forged&type=recovery`);
  await page.waitForURL(/\/reset-password$/);
  await page.getByLabel('Email').waitFor();
  expect(await page.getByRole('button', { name: 'Send reset link' }).isEnabled()).toBe(true);
  expect(await page.getByText('Loading...').count()).toBe(0);
});

it.each([
  ['1366 px', DESKTOP],
  ['390 px', PHONE],
])("signs in with what was typed on /login before the form's code arrived, and Sign In pressed then, at %s", async (_l, viewport) => {
  const user = await createTestUser(app.server);
  const { page, errors } = await app.newPage(viewport);
  // The form's code is held back until both fields are typed and Sign In pressed.
  const release = await holdRequests(page, '**/assets/login-form-*.js');
  await page.goto(`${app.url}/login`, { waitUntil: 'networkidle' });
  await page.getByLabel('Email').fill(user.email);
  await page.getByLabel('Password').fill(user.password);
  expect(await page.getByRole('button', { name: 'Sign In' }).isEnabled()).toBe(true);
  await page.getByRole('button', { name: 'Sign In' }).click();
  expect(page.url()).toMatch(/\/login$/);
  release();
  await page.waitForURL(/\/dashboard$/);
  expect(errors).toEqual([]);
});
