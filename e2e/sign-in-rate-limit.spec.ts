import { createClient } from '@supabase/supabase-js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ADDRESS_LINK_PARAM, NEW_ADDRESS_LINK_CODE } from '../src/shared/constants';
import { linksIn } from '../src/shared/mail-outbox';
import { messages } from '../src/shared/validation';
import { createTestUser } from '../test/helpers/users';
import { expectText, expectToast, stir } from './helpers/page-tools';
import { startApp, type TestApp, type Viewport } from './helpers/app';

// With the server's real rate limits: a sign-in refused with 429 says when to try again, from the
// answer's Retry-After; one from a new address of a locked account says to check the mail.

let app: TestApp;
beforeAll(async () => {
  // Its own server: the only one with rate limits, whose counts no other test may spend. Behind a
  // trusted proxy, so a stranger and a travelling owner can each have an address of their own.
  app = await startApp({ RATE_LIMITS_ENABLED: 'true', TRUST_PROXY: 'true' });
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

it('a new address of a locked account is told to check the mail, and the mailed link signs it in once', async () => {
  // Signed in at 127.0.0.1 (createTestUser): home. The owner now travels, and a stranger guesses.
  const user = await createTestUser(app.server);
  const travel = '198.51.100.80';
  const stranger = createClient(app.url, app.server.anonKey, {
    auth: { persistSession: false, autoRefreshToken: false },
    global: { headers: { 'x-forwarded-for': '203.0.113.80' } },
  });
  for (let i = 0; i < 10; i++) {
    expect((await stranger.auth.signInWithPassword({ email: user.email, password: 'not-the-password' })).error?.status).toBe(400);
  }
  const { page, context, errors } = await app.newPage();
  await context.setExtraHTTPHeaders({ 'x-forwarded-for': travel });
  await page.goto(`${app.url}/login`);
  await stir(page);
  await page.getByLabel('Email').fill(user.email);
  await page.getByLabel('Password').fill(user.password);
  const answer = page.waitForResponse((r) => r.url().includes('/auth/v1/token'));
  await page.getByRole('button', { name: 'Sign In' }).click();
  const res = await answer;
  expect([res.status(), ((await res.json()) as { code?: string }).code]).toEqual([429, NEW_ADDRESS_LINK_CODE]);
  await expectToast(page, 'Authentication Error', messages.newAddressLinkSent);
  // It stays on the page after the toast has gone.
  await page.getByRole('status').filter({ hasText: messages.newAddressLinkSent }).waitFor();

  const { rows } = await app.server.deps.db.query<{ text_body: string }>(
    `select text_body from nodeharbor.outbox where to_address = $1 and subject like 'Was this you?%'`,
    [user.email],
  );
  const link = linksIn(rows[0]!.text_body).find((l) => l.includes(`#${ADDRESS_LINK_PARAM}=`))!;
  await page.goto(link);
  await page.waitForURL(/\/dashboard/);
  const known = await app.server.deps.db.query(`select 1 from auth.known_addresses where user_id = $1 and ip = $2`, [user.id, travel]);
  expect(known.rowCount).toBe(1);

  // Opened again, in a browser of its own at the same address, it signs no one in and says why.
  const again = await app.newPage();
  await again.context.setExtraHTTPHeaders({ 'x-forwarded-for': travel });
  await again.page.goto(link);
  await expectToast(again.page, 'Authentication Error', messages.addressLinkInvalid);
  await expectText(again.page, 'Forgot your password?');
  // The token is gone from the address bar.
  expect(again.page.url()).toBe(`${app.url}/login`);
  // The browser reports each refusal (429, 403) as a failed resource load; nothing else may go wrong.
  expect([...errors, ...again.errors].filter((e) => !/\b(429|403)\b/.test(e))).toEqual([]);
});
