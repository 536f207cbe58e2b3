import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestUser } from '../test/helpers/users';
import { expectToast, stir } from './helpers/page-tools';
import { startApp, type TestApp, type Viewport } from './helpers/app';

// With the server's real rate limits: a sign-in refused with 429 says when to try again, from the
// answer's Retry-After.

let app: TestApp;
beforeAll(async () => {
  // Its own server: the only one with rate limits, whose counts no other test may spend.
  app = await startApp({ RATE_LIMITS_ENABLED: 'true' });
});
afterAll(() => app?.stop());

it.each([
  ['1366 px', { width: 1366, height: 850 }],
  ['390 px', { width: 390, height: 844 }],
] as [string, Viewport][])('a rate-limited sign-in says when to try again, from Retry-After, at %s', async (_label, viewport) => {
  const user = await createTestUser(app.server);
  // Ten wrong passwords from this address: the account's limit for it (AUTH_LIMITS).
  for (let i = 0; i < 10; i++) {
    const { error } = await app.server.client().auth.signInWithPassword({ email: user.email, password: 'not-the-password' });
    expect(error?.status).toBe(400);
  }
  const { page, errors } = await app.newPage(viewport);
  await page.goto(`${app.url}/login`);
  await stir(page);
  await page.getByLabel('Email').fill(user.email);
  await page.getByLabel('Password').fill(user.password);
  const answer = page.waitForResponse((r) => r.url().includes('/auth/v1/token'));
  await page.getByRole('button', { name: 'Sign In' }).click();
  const res = await answer;
  expect(res.status()).toBe(429);
  const seconds = Number(res.headers()['retry-after']);
  expect(seconds).toBeGreaterThan(60);
  await expectToast(page, 'Authentication Error', 'Too many attempts. Please try again in ');
  const said = await page.locator('[data-sonner-toast]').filter({ hasText: 'Too many attempts' }).first().innerText();
  const minutes = Number(/Please try again in (\d+) minutes\./.exec(said)?.[1]);
  // The page counts down from the answer's seconds: a slow step may have crossed a minute since.
  expect([Math.ceil(seconds / 60), Math.ceil((seconds - 5) / 60)]).toContain(minutes);
  expect(page.url()).toMatch(/\/login$/);
  // The browser reports the 429 as a failed resource load; nothing else may go wrong.
  expect(errors.filter((e) => !e.includes('429'))).toEqual([]);
});
