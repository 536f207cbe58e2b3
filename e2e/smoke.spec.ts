import { afterAll, beforeAll, expect, it } from 'vitest';
import { startApp, type TestApp } from './helpers/app';

let app: TestApp;
beforeAll(async () => {
  app = await startApp();
});
afterAll(() => app?.stop());

it('serves the prerendered home page and hydrates it', async () => {
  const { page, errors } = await app.newPage();
  await page.goto(app.url);
  await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBeTruthy();
  await page.getByRole('link', { name: 'Login' }).first().click();
  await page.waitForURL(/\/login$/);
  expect(errors).toEqual([]);
});
