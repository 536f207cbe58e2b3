import { Secret, TOTP } from 'otpauth';
import { beforeAll, describe, expect, it } from 'vitest';
import { addCredits } from '../src/server/domain/credits';
import { messages } from '../src/shared/validation';
import { createTestUser, GALA_KEY, TOWN_STAR } from '../test/helpers/users';
import { openMenu, openSection } from './dashboard-helpers';
import { answerJson, expectText, expectToast, holdRequests, serverError } from './helpers/page-tools';
import { DESKTOP, MOBILE, sharedApp, signIn, type TestApp } from './helpers/app';

let app: TestApp;
beforeAll(async () => {
  app = await sharedApp();
});

describe('settings, account and session', () => {
  it('guards the dashboard, and signs out from the user menu', async () => {
    const user = await createTestUser(app.server, { fullName: 'Grace Brewster Hopper' });
    const { page, errors } = await app.newPage(DESKTOP);
    await page.goto(`${app.url}/dashboard/billing`);
    await page.waitForURL(/\/login$/);
    await signIn(page, app.url, user.email, user.password);
    // Initials: the first letters of the full name, at most two.
    const menu = page.getByRole('button', { name: 'User menu' });
    await expect.poll(() => menu.innerText()).toBe('GB');
    await menu.click();
    await page.getByRole('menu').getByText(user.email).waitFor();
    await page.getByRole('menuitem', { name: 'Log out' }).click();
    await page.waitForURL(/\/login$/);
    await page.goto(`${app.url}/dashboard`);
    await page.waitForURL(/\/login$/);
    expect(errors).toEqual([]);
  });

  it('says "Error signing out" when the server fails, and stays signed in', async () => {
    const user = await createTestUser(app.server);
    const { page, context } = await app.newPage(MOBILE);
    await signIn(page, app.url, user.email, user.password);
    await expect.poll(() => page.getByRole('button', { name: 'User menu' }).innerText()).toBe('U');
    await context.route((u) => u.pathname === '/auth/v1/logout', answerJson(500, { message: 'down' }));
    await (await openMenu(page)).getByRole('button', { name: 'Sign out' }).click();
    await expectToast(page, 'Error signing out');
    await page.getByRole('heading', { level: 1, name: 'Dashboard' }).waitFor();
  });

  it('changes the password, with its rules and failure', async () => {
    const user = await createTestUser(app.server);
    const { page, context } = await app.newPage(DESKTOP);
    await signIn(page, app.url, user.email, user.password);
    await openSection(page, 'Settings');
    await page.getByRole('tab', { name: 'Security' }).click();
    const form = page.getByRole('region', { name: 'Change Password' });
    await form.getByLabel('New password', { exact: true }).fill('abc');
    await form.getByLabel('Confirm new password').fill('abd');
    await form.getByRole('button', { name: 'Update Password' }).click();
    await expectText(page, 'Password too short');
    await expectText(page, "Passwords don't match");
    await expectText(page, messages.currentPasswordRequired);

    // The real server refuses a wrong current password; a common new one the form refuses itself, in the server's words.
    await form.getByLabel('Current password').fill('not-my-password');
    await form.getByLabel('New password', { exact: true }).fill('a-new-password');
    await form.getByLabel('Confirm new password').fill('a-new-password');
    await form.getByRole('button', { name: 'Update Password' }).click();
    await expectToast(page, 'Error updating password', 'Current password is incorrect.');
    await form.getByLabel('Current password').fill(user.password);
    await form.getByLabel('New password', { exact: true }).fill('password1');
    await form.getByLabel('Confirm new password').fill('password1');
    await form.getByRole('button', { name: 'Update Password' }).click();
    await expectText(page, messages.passwordCommon);

    const userEndpoint = (u: URL) => u.pathname === '/auth/v1/user';
    await context.route(userEndpoint, (r) =>
      r.request().method() === 'PUT' ? answerJson(422, { code: 'weak_password', msg: 'Password is known to be weak' })(r) : r.continue(),
    );
    await form.getByLabel('New password', { exact: true }).fill('a-new-password');
    await form.getByLabel('Confirm new password').fill('a-new-password');
    await form.getByRole('button', { name: 'Update Password' }).click();
    await expectToast(page, 'Error updating password', 'Password is known to be weak');
    await context.unroute(userEndpoint);
    // A request that never reaches the server has no message of its own to show.
    await context.route(userEndpoint, (r) => (r.request().method() === 'PUT' ? r.abort('connectionrefused') : r.continue()));
    await form.getByRole('button', { name: 'Update Password' }).click();
    await expectToast(page, 'Error updating password', 'An unknown error occurred');
    await context.unroute(userEndpoint);

    await form.getByRole('button', { name: 'Update Password' }).click();
    await expectToast(page, 'Password updated successfully', 'Your password has been changed.');
    const fresh = app.server.client();
    const { error } = await fresh.auth.signInWithPassword({ email: user.email, password: 'a-new-password' });
    expect(error).toBeNull();
  });

  it('saves dark mode, language and time zone to the profile and formats with them', async () => {
    const user = await createTestUser(app.server, { credits: 1234.5 });
    const { page, errors } = await app.newPage(DESKTOP);
    await signIn(page, app.url, user.email, user.password);
    await openSection(page, 'Settings');
    await page.getByRole('switch', { name: 'Dark mode' }).click();
    await expect(page.evaluate(() => document.documentElement.classList.contains('dark'))).resolves.toBe(true);
    await page.getByLabel('Language').selectOption('de');
    await page.getByLabel('Time zone').selectOption('Asia/Tokyo');
    await page.getByRole('button', { name: 'Save Preferences' }).click();
    await expectToast(page, 'Settings saved');
    const euros = (n: number) => new Intl.NumberFormat('de', { style: 'currency', currency: 'USD' }).format(n);
    await expectText(page, euros(1234.5));

    // The dark-mode switch saves on its own, without waiting: poll until it has landed.
    const saved = async () =>
      (
        await app.server.deps.db.query<{ darkmode_enabled: boolean; language: string; time_zone: string }>(
          'select darkmode_enabled, language, time_zone from public.profiles where id = $1',
          [user.id],
        )
      ).rows[0];
    await expect.poll(saved).toEqual({ darkmode_enabled: true, language: 'de', time_zone: 'Asia/Tokyo' });

    // Amounts and dates everywhere follow them, after a reload too.
    await addCredits(app.server.deps.db, user.id, 1, 'Late credit');
    await page.reload();
    await openSection(page, 'Billing');
    await expect.poll(() => page.getByLabel('Current balance').innerText()).toBe(euros(1235.5));
    const when = new Intl.DateTimeFormat('de', { dateStyle: 'medium', timeZone: 'Asia/Tokyo' }).format(new Date());
    await expectText(page, when);
    expect(errors).toEqual([]);
  });

  it('updates the profile on the Account page, or says it could not', async () => {
    const user = await createTestUser(app.server, { fullName: 'Alan Turing' });
    const { page, context } = await app.newPage(MOBILE);
    await signIn(page, app.url, user.email, user.password);
    await openSection(page, 'Account');
    await expectText(page, 'Standard');
    const year = String(new Date().getUTCFullYear());
    await expectText(page, new RegExp(`Member since.*${year}`, 's'));
    await expect(page.getByLabel('Email').isEditable()).resolves.toBe(false);
    await page.getByRole('button', { name: 'Edit' }).click();
    await page.getByLabel('Full name').fill('Alonzo Church');
    await page.getByLabel('Company').fill('Lambda Ltd');
    await page.getByLabel('VAT ID').fill('GB123456789');
    await page.getByRole('button', { name: 'Save' }).click();
    await expectToast(page, 'Profile updated');
    await expect.poll(() => page.getByRole('button', { name: 'User menu' }).innerText()).toBe('AC');

    await context.route(
      (u) => u.pathname === '/rest/v1/profiles',
      (r) => (r.request().method() === 'PATCH' ? serverError(r) : r.continue()),
    );
    await page.getByRole('button', { name: 'Edit' }).click();
    await page.getByLabel('Company').fill('Other');
    await page.getByRole('button', { name: 'Save' }).click();
    await expectToast(page, 'Error updating profile', 'There was a problem updating your profile. Please try again.');
  });

  it('says so when the profile or the authenticators cannot be loaded', async () => {
    const user = await createTestUser(app.server);
    const { page, context } = await app.newPage(DESKTOP);
    await signIn(page, app.url, user.email, user.password);
    // supabase-js lists the factors from GET /auth/v1/user, which only the 2FA card reads here.
    await context.route(
      (u) => u.pathname === '/rest/v1/profiles' || u.pathname === '/auth/v1/user',
      (r) => (r.request().method() === 'GET' ? serverError(r) : r.continue()),
    );
    await openSection(page, 'Settings');
    await expectText(page, 'Failed to load your settings.', 20_000);
    await page.getByRole('tab', { name: 'Security' }).click();
    await expectText(page, 'Failed to load your authenticators.', 20_000);
    await openSection(page, 'Account');
    await expectText(page, 'Failed to load your profile.', 20_000);
    // Three reads each wait out the query client's retries: about 20 s in all, more on a loaded machine.
  });

  it('enrols a TOTP factor and asks for a code at the next sign-in', async () => {
    const user = await createTestUser(app.server);
    const { page, errors } = await app.newPage(DESKTOP);
    await signIn(page, app.url, user.email, user.password);
    await openSection(page, 'Settings');
    await page.getByRole('tab', { name: 'Security' }).click();
    await page.getByRole('button', { name: 'Enable two-factor authentication' }).click();
    await page.getByRole('img', { name: 'QR code for your authenticator app' }).waitFor();
    const secret = (await page.getByTestId('totp-secret').innerText()).trim();
    const totp = new TOTP({ secret: Secret.fromBase32(secret), algorithm: 'SHA1', digits: 6, period: 30 });
    // Two codes of two different steps: the server takes each step once.
    const step = totp.counter();
    await page.getByLabel('Verification code').fill(totp.generate({ timestamp: step * 30_000 }));
    await page.getByRole('button', { name: 'Verify and enable' }).click();
    await expectToast(page, 'Two-factor authentication enabled');
    await page.getByRole('list', { name: 'Authenticators' }).getByRole('listitem').waitFor();
    const [recoveryCode] = await page.getByRole('list', { name: 'Recovery codes' }).getByRole('listitem').allInnerTexts();
    await page.getByRole('button', { name: 'I have saved my codes' }).click();

    // Exact: the Sessions card has "Sign out" buttons of its own.
    await page.getByRole('button', { name: 'Sign out', exact: true }).click();
    await page.waitForURL(/\/login$/);
    await page.getByLabel('Email').fill(user.email);
    await page.getByLabel('Password').fill(user.password);
    await page.getByRole('button', { name: 'Sign In' }).click();
    const code = page.getByLabel('Authentication code');
    await code.waitFor();
    // The dashboard stays closed until the code is given.
    await page.goto(`${app.url}/dashboard`);
    await page.waitForURL(/\/login$/);
    await code.fill(totp.generate({ timestamp: (step + 1) * 30_000 }));
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.waitForURL(/\/dashboard$/);
    await expectToast(page, 'Welcome back!');

    // And it can be removed, with a current code: the app's two steps are spent, so a recovery code.
    await openSection(page, 'Settings');
    await page.getByRole('tab', { name: 'Security' }).click();
    await page.getByRole('button', { name: /^Remove / }).click();
    const dialog = page.getByRole('dialog', { name: 'Remove two-factor authentication?' });
    await dialog.getByLabel('Code from your app, or a recovery code').fill(recoveryCode!);
    await dialog.getByRole('button', { name: 'Remove two-factor authentication' }).click();
    await expectToast(page, 'Two-factor authentication removed');
    await page.getByRole('button', { name: 'Enable two-factor authentication' }).waitFor();
    expect(errors).toEqual([]);
  });

  it('deletes the account once its e-mail is typed, and signs out for good', async () => {
    const user = await createTestUser(app.server, { credits: 12.5 });
    const { page, errors } = await app.newPage(MOBILE);
    await signIn(page, app.url, user.email, user.password);
    await openSection(page, 'Settings');
    await page.getByRole('tab', { name: 'Security' }).click();
    await page.getByRole('region', { name: 'Danger Zone' }).getByRole('button', { name: 'Delete Account' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete your account?' });
    await dialog.getByText('Your remaining credit of $12.50 can no longer be used.').waitFor();
    const submit = dialog.getByRole('button', { name: 'Delete my account' });
    const typed = dialog.getByLabel(`Type ${user.email} to confirm`);
    await typed.fill('someone-else@nodeharbor.test');
    expect(await submit.isDisabled()).toBe(true);
    // Closing forgets what was typed.
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await page.getByRole('region', { name: 'Danger Zone' }).getByRole('button', { name: 'Delete Account' }).click();
    expect(await typed.inputValue()).toBe('');
    await typed.fill(` ${user.email.toUpperCase()}`);
    const release = await holdRequests(page, '**/rest/v1/rpc/delete_own_account');
    await submit.click();
    await dialog.getByRole('button', { name: 'Deleting account...' }).waitFor();
    release();
    await expectToast(page, 'Account deleted', 'Your account and your data have been removed.');
    await page.waitForURL(/\/login$/);
    await page.goto(`${app.url}/dashboard`);
    await page.waitForURL(/\/login$/);
    const again = await app.server.client().auth.signInWithPassword({ email: user.email, password: user.password });
    expect(again.error?.message).toBe('Invalid login credentials');
    // supabase-js forgets a session by telling the server, which answers 403 (user_not_found, as
    // GoTrue does) for an account that is gone; the library takes that as signed out.
    expect(errors).toEqual(['Failed to load resource: the server responded with a status of 403 (Forbidden)']);
  });

  it('keeps the account while a service is still installing, and says why', async () => {
    const user = await createTestUser(app.server);
    // A node that is still being set up: no install job, so it stays that way for this test.
    await app.server.deps.db.query(
      `insert into private.services (user_id, name, api_key_encrypted, product_id)
       values ($1, 'node-setup', private.encrypt_api_key($2), $3)`,
      [user.id, GALA_KEY, TOWN_STAR],
    );
    const { page } = await app.newPage(DESKTOP);
    await signIn(page, app.url, user.email, user.password);
    await openSection(page, 'Settings');
    await page.getByRole('tab', { name: 'Security' }).click();
    await page.getByRole('button', { name: 'Delete Account' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete your account?' });
    await dialog.getByLabel(`Type ${user.email} to confirm`).fill(user.email);
    await dialog.getByRole('button', { name: 'Delete my account' }).click();
    await expectToast(page, 'Error deleting account', messages.accountServiceInstalling);
    await dialog.waitFor();
    expect((await user.client.auth.getUser()).data.user?.email).toBe(user.email);
  });
});
