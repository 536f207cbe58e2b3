import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { messages } from '../src/shared/validation';
import { createTestUser } from '../test/helpers/users';
import { until } from '../test/helpers/wait';
import { MOBILE, sharedApp, signIn, startApp, type TestApp } from './helpers/app';
import { expectToast as toast, holdRequests, stir } from './helpers/page-tools';

let app: TestApp;
beforeAll(async () => {
  app = await sharedApp();
});

describe('/login', () => {
  it('asks for both fields, shows the library message in an "Authentication Error" toast, and says "Signing in..." meanwhile', async () => {
    const user = await createTestUser(app.server);
    const { page } = await app.newPage();
    await page.goto(`${app.url}/login`);
    // A person's pointer reaches the button before the click: that loads the form's code.
    await stir(page);
    await page.getByRole('button', { name: 'Sign In' }).click();
    await page.getByText('You must provide either an email or phone number and a password').first().waitFor();

    await page.getByLabel('Email').fill(user.email);
    await page.getByLabel('Password').fill('not-the-password');
    const release = await holdRequests(page, '**/auth/v1/token**');
    await page.getByRole('button', { name: 'Sign In' }).click();
    await page.getByRole('button', { name: 'Signing in...' }).waitFor();
    expect(await page.getByRole('button', { name: 'Signing in...' }).isDisabled()).toBe(true);
    release();
    await toast(page, 'Authentication Error');
    await toast(page, 'Invalid login credentials');
    expect(page.url()).toMatch(/\/login$/);
  });

  it.each([
    ['1280 px', undefined],
    ['375 px', MOBILE],
  ])('signs in with "Welcome back!" and the dashboard at %s; a signed-in visitor of /login goes to the dashboard', async (_l, viewport) => {
    const user = await createTestUser(app.server);
    const { page } = await app.newPage(viewport);
    await signIn(page, app.url, user.email, user.password);
    await toast(page, 'Welcome back!');
    await page.goto(`${app.url}/login`);
    await page.waitForURL(/\/dashboard$/);
  });
});

describe('/register', () => {
  it('shows a loading state, then "Registration Disabled" with a link to sign in', async () => {
    const { page } = await app.newPage();
    await page.goto(`${app.url}/register`);
    await page.getByRole('heading', { name: 'Registration Disabled' }).waitFor();
    await page.getByText('Registration is currently disabled while we build a new dashboard').waitFor();
    await page.getByRole('main').getByRole('link', { name: 'Sign in' }).click();
    await page.waitForURL(/\/login$/);
  });

  it('shows the sign-up form when the server enables registration, with its rules and success toast', async () => {
    const open = await startApp({ REGISTRATION_ENABLED: 'true' });
    try {
      const { page } = await open.newPage();
      await page.goto(`${open.url}/register`);
      await page.getByRole('heading', { name: 'Create an account' }).waitFor();
      await page.getByLabel('Email').fill('new-operator@nodeharbor.test');
      await page.getByLabel('Password', { exact: true }).fill('a-good-password');
      await page.getByLabel('Confirm password').fill('another-password');
      await page.getByRole('button', { name: 'Create account' }).click();
      await page.getByText('Full name is required').waitFor();
      await page.getByText("Passwords don't match").waitFor();
      await page.getByLabel('Full name').fill('New Operator');
      await page.getByLabel('Confirm password').fill('a-good-password');
      await page.getByRole('button', { name: 'Create account' }).click();
      await toast(page, 'Account created successfully!');
      const { rows } = await open.server.deps.db.query<{ full_name: string }>(
        `select p.full_name from public.profiles p join auth.users u on u.id = p.id where u.email = 'new-operator@nodeharbor.test'`,
      );
      expect(rows).toEqual([{ full_name: 'New Operator' }]);
    } finally {
      await open.stop();
    }
  });
});

describe('password reset', () => {
  /** The link of the newest mail to `email`, once the worker has run the queued recovery job. */
  function lastResetLink(email: string): Promise<string> {
    return until(
      `a reset link mailed to ${email}`,
      async () => {
        const { rows } = await app.server.deps.db.query<{ text_body: string }>(
          'select text_body from nodeharbor.outbox where to_address = $1 order by id desc limit 1',
          [email],
        );
        return rows[0]?.text_body.match(/https?:\/\/\S+\/auth\/v1\/verify\?\S+/)?.[0];
      },
      10_000,
      100,
    );
  }

  it('runs end to end with the e-mailed link: request, validate, set a new password, sign in with it', async () => {
    const user = await createTestUser(app.server);
    const { page } = await app.newPage();
    await page.goto(`${app.url}/login`);
    await page.getByRole('link', { name: /forgot/i }).click();
    await page.waitForURL(/\/reset-password$/);

    await page.getByLabel('Email').fill('not-an-address');
    await page.getByRole('button', { name: 'Send reset link' }).click();
    await page.getByText('Please enter a valid email address').waitFor();
    await page.getByLabel('Email').fill(user.email);
    const release = await holdRequests(page, '**/auth/v1/recover**');
    await page.getByRole('button', { name: 'Send reset link' }).click();
    await page.getByRole('button', { name: 'Checking email...' }).waitFor();
    release();
    await toast(page, 'Password reset email sent!');
    await page.getByRole('status').filter({ hasText: 'If an account exists for that email address' }).waitFor();

    await page.goto(await lastResetLink(user.email));
    await page.waitForURL(/\/reset-password-confirm$/);
    // The tokens are gone from the address bar as soon as they are read.
    expect(page.url()).not.toContain('access_token');
    await page.getByRole('heading', { name: 'Set new password' }).waitFor();
    await page.getByLabel('New password', { exact: true }).fill('short');
    await page.getByLabel('Confirm new password').fill('different');
    await page.getByRole('button', { name: 'Update password' }).click();
    await page.getByText('Password must be at least 8 characters long').waitFor();
    await page.getByText("Passwords don't match").waitFor();
    // Long enough, but one of the most used passwords: the form says so in the server's words.
    await page.getByLabel('New password', { exact: true }).fill('password1');
    await page.getByLabel('Confirm new password').fill('password1');
    await page.getByRole('button', { name: 'Update password' }).click();
    await page.getByText(messages.passwordCommon).waitFor();
    await page.getByLabel('New password', { exact: true }).fill('a-brand-new-password');
    await page.getByLabel('Confirm new password').fill('a-brand-new-password');
    await page.getByRole('button', { name: 'Update password' }).click();
    await toast(page, 'Password updated successfully!');
    await page.waitForURL(/\/login$/);

    await signIn(page, app.url, user.email, 'a-brand-new-password');
  });

  it('answers the same for an unknown address', async () => {
    const { page } = await app.newPage();
    await page.goto(`${app.url}/reset-password`);
    // Typing before the page's code runs would not wake the deferred form (a loaded machine was that slow).
    await stir(page);
    await page.getByLabel('Email').fill('nobody-here@nodeharbor.test');
    await page.getByRole('button', { name: 'Send reset link' }).click();
    await toast(page, 'Password reset email sent!');
    await page.getByRole('status').filter({ hasText: 'If an account exists for that email address' }).waitFor();
  });

  /** Spec §8: the "Reset link error" toast, then /reset-password saying "Invalid reset link" above the form that asks for a new one. */
  async function expectSentBackFromInvalidLink(page: Page, reason?: string) {
    await toast(page, 'Reset link error', reason);
    await page.waitForURL(/\/reset-password$/);
    const notice = page.getByRole('alert').filter({ hasText: 'Invalid reset link' });
    await notice.getByText('This password reset link is invalid or has expired. Please request a new one.').waitFor();
    // A hand on the mouse, as on any first page: the form's code loads on it.
    await stir(page);
    await page.getByRole('button', { name: 'Send reset link' }).waitFor();
  }

  it.each([
    ['1366 px', { width: 1366, height: 850 }],
    ['390 px', { width: 390, height: 844 }],
  ])('sends a spent link back to /reset-password with "Reset link error" and "Invalid reset link" at %s', async (_label, viewport) => {
    const user = await createTestUser(app.server);
    const { page } = await app.newPage(viewport);
    await page.goto(`${app.url}/reset-password`);
    await stir(page);
    await page.getByLabel('Email').fill(user.email);
    await page.getByRole('button', { name: 'Send reset link' }).click();
    await toast(page, 'Password reset email sent!');
    const link = await lastResetLink(user.email);
    await page.goto(link);
    await page.getByRole('heading', { name: 'Set new password' }).waitFor();
    // The same link again: the server has spent it and says so in the fragment.
    await page.goto(link);
    await expectSentBackFromInvalidLink(page, 'Email link is invalid or has expired');
    // A new link can be asked for right there.
    await page.getByLabel('Email').fill(user.email);
    await page.getByRole('button', { name: 'Send reset link' }).click();
    await toast(page, 'Password reset email sent!');
  });

  it('sends a link without its tokens back the same way', async () => {
    const { page } = await app.newPage();
    await page.goto(`${app.url}/reset-password-confirm#type=recovery&access_token=only-one`);
    await expectSentBackFromInvalidLink(page);
  });

  it('sends a link whose tokens the server refuses back the same way', async () => {
    const { page } = await app.newPage();
    await page.goto(`${app.url}/reset-password-confirm#access_token=forged&refresh_token=forged&type=recovery`);
    await expectSentBackFromInvalidLink(page);
  });
});
