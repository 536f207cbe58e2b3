import { readFileSync } from 'node:fs';
import type { SupabaseClient } from '@supabase/supabase-js';
import { Secret, TOTP } from 'otpauth';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { createTestUser, type TestUser } from '../test/helpers/users';
import { openSection } from './dashboard-helpers';
import { seriousViolations } from './helpers/axe';
import { expectToast, stir } from './helpers/page-tools';
import { DESKTOP, sharedApp, signIn, type TestApp, type Viewport } from './helpers/app';

let app: TestApp;
beforeAll(async () => {
  app = await sharedApp();
});

async function openSecurity(page: Page) {
  await openSection(page, 'Settings');
  await page.getByRole('tab', { name: 'Security' }).click();
}

/** Turns two-factor sign-in on for `user` through the API, and makes their recovery codes. */
async function withRecoveryCodes(user: TestUser): Promise<string[]> {
  const sb: SupabaseClient = user.client;
  const { data: factor, error } = await sb.auth.mfa.enroll({ factorType: 'totp' });
  if (error) throw error;
  const code = new TOTP({ secret: Secret.fromBase32(factor.totp.secret) }).generate();
  expect((await sb.auth.mfa.challengeAndVerify({ factorId: factor.id, code })).error).toBeNull();
  const token = (await sb.auth.getSession()).data.session!.access_token;
  const res = await fetch(`${app.url}/auth/v1/factors/recovery-codes`, {
    method: 'POST',
    headers: { apikey: app.server.anonKey, authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: '{}',
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { codes: string[] }).codes;
}

describe('Settings → Security: sessions and recovery codes', () => {
  it('lists the signed-in devices, signs one out, then every other', async () => {
    const user = await createTestUser(app.server);
    const { page, errors } = await app.newPage(DESKTOP);
    await signIn(page, app.url, user.email, user.password);
    await openSecurity(page);
    const card = page.getByRole('region', { name: 'Sessions' });
    const devices = card.getByRole('list', { name: 'Signed-in devices' }).getByRole('listitem');
    await expect.poll(() => devices.count()).toBe(2);
    const here = devices.filter({ hasText: 'This device' });
    await expect(here.innerText()).resolves.toMatch(/Chrom(e|ium) on Linux/);
    await expect(here.innerText()).resolves.toContain('127.0.0.1');

    // The other one is the API client createTestUser signed in with.
    await devices
      .filter({ hasNotText: 'This device' })
      .getByRole('button', { name: /^Sign out/ })
      .click();
    await expectToast(page, 'Device signed out');
    await expect.poll(() => devices.count()).toBe(1);
    expect((await user.client.auth.refreshSession()).error).not.toBeNull();

    const laptop = app.server.client();
    await laptop.auth.signInWithPassword({ email: user.email, password: user.password });
    await page.reload();
    await openSecurity(page);
    await expect.poll(() => devices.count()).toBe(2);
    await card.getByRole('button', { name: 'Sign out everywhere else' }).click();
    await expectToast(page, 'Signed out everywhere else');
    await expect.poll(() => devices.count()).toBe(1);
    expect((await laptop.auth.refreshSession()).error).not.toBeNull();
    await page.getByRole('heading', { level: 1, name: 'Settings' }).waitFor();
    expect(errors).toEqual([]);
  });

  it('sends a tab whose session ended on another device back to the sign-in page at its next request', async () => {
    const user = await createTestUser(app.server);
    const { page, errors } = await app.newPage(DESKTOP);
    await signIn(page, app.url, user.email, user.password);
    // Signed out from elsewhere: "Sign out everywhere else" on another device.
    expect((await user.client.auth.signOut({ scope: 'others' })).error).toBeNull();
    // Its next request: the Billing page's, or one of the page it is on, which may come first and
    // take the link away mid-click (a click left waiting fails quietly once the page moves on).
    const billing = page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Billing', exact: true });
    await Promise.race([billing.click().catch(() => undefined), page.waitForURL(/\/login/)]);
    await page.waitForURL(/\/login/);
    // The browser logs the refused requests (401, and 403 for the local sign-out); nothing else fails.
    expect(errors.filter((e) => !/^Failed to load resource: the server responded with a status of 40[13]/.test(e))).toEqual([]);
  });

  it('shows ten recovery codes once two-factor sign-in is on, and replaces them on demand', async () => {
    const user = await createTestUser(app.server);
    const { page, errors } = await app.newPage(DESKTOP);
    await signIn(page, app.url, user.email, user.password);
    await openSecurity(page);
    await page.getByRole('button', { name: 'Enable two-factor authentication' }).click();
    const secret = (await page.getByTestId('totp-secret').innerText()).trim();
    await page.getByLabel('Verification code').fill(new TOTP({ secret: Secret.fromBase32(secret) }).generate());
    await page.getByRole('button', { name: 'Verify and enable' }).click();
    await expectToast(page, 'Two-factor authentication enabled');
    const codes = page.getByRole('list', { name: 'Recovery codes' }).getByRole('listitem');
    await expect.poll(() => codes.count()).toBe(10);
    const first = await codes.allInnerTexts();
    for (const c of first) expect(c).toMatch(/^[a-z2-9]{4}(-[a-z2-9]{4}){3}$/);
    await page.getByRole('button', { name: 'I have saved my codes' }).click();
    await expect.poll(() => page.getByTestId('recovery-code-count').innerText()).toBe('10 of 10 recovery codes left');

    await page.getByRole('button', { name: 'Replace recovery codes' }).click();
    await expect.poll(() => codes.count()).toBe(10);
    const second = await codes.allInnerTexts();
    expect(second.some((c) => first.includes(c))).toBe(false);
    expect(errors).toEqual([]);
  });

  it('signs in with a recovery code in place of the app, and takes each code once', async () => {
    const user = await createTestUser(app.server);
    const codes = await withRecoveryCodes(user);
    const { page, errors } = await app.newPage(DESKTOP);
    const secondStep = async () => {
      await page.goto(`${app.url}/login`);
      await stir(page);
      await page.getByLabel('Email').fill(user.email);
      await page.getByLabel('Password').fill(user.password);
      await page.getByRole('button', { name: 'Sign In' }).click();
      await page.getByLabel('Authentication code').waitFor();
      await page.getByRole('button', { name: 'Use a recovery code' }).click();
    };
    await secondStep();
    await page.getByLabel('Recovery code').fill(codes[0]!.toUpperCase());
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.waitForURL(/\/dashboard$/);
    await expectToast(page, 'Welcome back!');
    await openSecurity(page);
    await expect.poll(() => page.getByTestId('recovery-code-count').innerText()).toBe('9 of 10 recovery codes left');

    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await page.waitForURL(/\/login$/);
    await secondStep();
    await page.getByLabel('Recovery code').fill(codes[0]!);
    await page.getByRole('button', { name: 'Verify' }).click();
    await expectToast(page, 'Authentication Error', 'Invalid recovery code entered');
    expect(page.url()).toMatch(/\/login$/);
    expect(errors.filter((e) => !e.includes('422'))).toEqual([]);
  });

  /** Signs in with the password and a recovery code (the app's codes are the test's to spend elsewhere). */
  async function signInWithCode(page: Page, user: TestUser, code: string) {
    await page.goto(`${app.url}/login`);
    await stir(page);
    await page.getByLabel('Email').fill(user.email);
    await page.getByLabel('Password').fill(user.password);
    await page.getByRole('button', { name: 'Sign In' }).click();
    await page.getByLabel('Authentication code').waitFor();
    // Not signed in until the second step: the header still offers Login (beside the menu on a phone).
    if ((page.viewportSize()?.width ?? 0) >= 768) {
      await page.getByRole('banner').getByRole('link', { name: 'Login' }).waitFor();
      await expect(page.getByRole('banner').getByRole('link', { name: 'Dashboard' }).count()).resolves.toBe(0);
    }
    await page.getByRole('button', { name: 'Use a recovery code' }).click();
    await page.getByLabel('Recovery code').fill(code);
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.waitForURL(/\/dashboard$/);
  }

  const WIDE: Viewport = { width: 1366, height: 900 };
  const PHONE: Viewport = { width: 390, height: 844 };

  for (const [viewport, theme] of [
    [WIDE, 'light'],
    [PHONE, 'dark'],
  ] as const) {
    it(`removes two-factor sign-in only with a current code, after a confirmation (${viewport.width} px, ${theme})`, async () => {
      const user = await createTestUser(app.server);
      const codes = await withRecoveryCodes(user);
      expect(
        (
          await user.client
            .from('profiles')
            .update({ darkmode_enabled: theme === 'dark' })
            .eq('id', user.id)
        ).error,
      ).toBeNull();
      const { page, errors } = await app.newPage(viewport);
      await signInWithCode(page, user, codes[0]!);
      await openSecurity(page);
      const authenticators = page.getByRole('list', { name: 'Authenticators' });
      await authenticators.getByRole('button', { name: 'Remove Authenticator app' }).click();
      const dialog = page.getByRole('dialog', { name: 'Remove two-factor authentication?' });
      await dialog.getByText('You will sign in with your password alone, and your recovery codes will stop working.').waitFor();
      const remove = dialog.getByRole('button', { name: 'Remove two-factor authentication' });
      await expect(remove.isDisabled()).resolves.toBe(true);
      expect(await seriousViolations(page)).toEqual([]);

      // A wrong code of either kind is refused, and nothing is removed.
      const field = dialog.getByLabel('Code from your app, or a recovery code');
      await field.fill('000000');
      await remove.click();
      await dialog.getByText('Invalid TOTP code entered').waitFor();
      await field.fill('aaaa-bbbb-cccc-dddd');
      await remove.click();
      await dialog.getByText('Invalid recovery code entered').waitFor();
      expect((await user.client.auth.mfa.listFactors()).data!.totp).toHaveLength(1);

      // Cancelled, the dialog forgets what was typed.
      await dialog.getByRole('button', { name: 'Cancel' }).click();
      await authenticators.getByRole('button', { name: 'Remove Authenticator app' }).click();
      await expect(field.inputValue()).resolves.toBe('');

      await field.fill(codes[1]!);
      await remove.click();
      await expectToast(page, 'Two-factor authentication removed');
      await page.getByRole('button', { name: 'Enable two-factor authentication' }).waitFor();
      expect((await app.server.deps.db.query('select 1 from auth.mfa_factors where user_id = $1', [user.id])).rowCount).toBe(0);
      expect(errors.filter((e) => !e.includes('422'))).toEqual([]);
    });
  }

  it('downloads the new recovery codes as text', async () => {
    const user = await createTestUser(app.server);
    const { page, errors } = await app.newPage(WIDE);
    await signIn(page, app.url, user.email, user.password);
    await openSecurity(page);
    await page.getByRole('button', { name: 'Enable two-factor authentication' }).click();
    const secret = (await page.getByTestId('totp-secret').innerText()).trim();
    await page.getByLabel('Verification code').fill(new TOTP({ secret: Secret.fromBase32(secret) }).generate());
    await page.getByRole('button', { name: 'Verify and enable' }).click();
    const codes = page.getByRole('list', { name: 'Recovery codes' }).getByRole('listitem');
    await expect.poll(() => codes.count()).toBe(10);
    const shown = await codes.allInnerTexts();
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download' }).click()]);
    expect(download.suggestedFilename()).toBe('nodeharbor-recovery-codes.txt');
    const text = readFileSync((await download.path())!, 'utf8');
    expect(text.trim().split('\n').slice(-10)).toEqual(shown);
    expect(text).toContain('Each works once');
    expect(errors).toEqual([]);
  });
});
