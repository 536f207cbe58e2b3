import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { WEB_DIST } from '../src/server/paths';
import { messages } from '../src/shared/validation';
import { createTestUser } from '../test/helpers/users';
import { until } from '../test/helpers/wait';
import { openSection } from './dashboard-helpers';
import { expectToast, stir } from './helpers/page-tools';
import { sharedApp, signIn, type TestApp } from './helpers/app';

// Item 4 of issue 33: the forms that set a password hold it to the server's rule (zxcvbn, with the
// account's own words and the site's name), and load that rule only when they are used.

let app: TestApp;
beforeAll(async () => {
  app = await sharedApp({ REGISTRATION_ENABLED: 'true' });
});

/** A fresh account's address and name; its local part is random, so only whose it is makes it weak. */
function account() {
  const local = `qz${randomBytes(6).toString('hex')}`;
  return { local, email: `${local}@nodeharbor.test`, fullName: 'Wilhelmina Quaxley' };
}
const weakOnes = (a: ReturnType<typeof account>) => ['aaaaaaaa', 'nodeharbor', a.email, a.local];
const STRONG = 'lantern-orbit-quiet-mango';

/** The built file of the password rule (zxcvbn and its dictionaries), as the page would fetch it. */
const ruleFile = `/${(JSON.parse(readFileSync(join(WEB_DIST, '.vite/manifest.json'), 'utf8')) as Record<string, { file: string }>)['../shared/password-strength.ts']!.file}`;

/** Scripts and password-setting requests the page makes from now on. */
function watch(page: Page) {
  const seen = { scripts: [] as string[], sets: [] as string[] };
  page.on('request', (r) => {
    const { pathname } = new URL(r.url());
    if (r.resourceType() === 'script') seen.scripts.push(pathname);
    if (pathname === '/auth/v1/signup' || (pathname === '/auth/v1/user' && r.method() === 'PUT')) seen.sets.push(pathname);
  });
  return seen;
}

/** Submits each weak password and expects the form's own refusal, in the server's words. */
async function expectRefused(page: Page, passwords: string[], fields: { password: string; confirm: string; submit: string }) {
  for (const password of passwords) {
    await page.getByLabel(fields.password, { exact: true }).fill(password);
    await page.getByLabel(fields.confirm, { exact: true }).fill(password);
    await page.getByRole('button', { name: fields.submit }).click();
    await page.getByText(messages.passwordCommon).waitFor();
    // Typing again clears the message, so each refusal is seen anew.
    await page.getByLabel(fields.password, { exact: true }).fill('');
    await page.getByText(messages.passwordCommon).waitFor({ state: 'detached' });
  }
}

// The page fetches and ranks zxcvbn's dictionaries (850 KB gzip) once per test: more time than most journeys.
describe('the forms that set a password', { timeout: 120_000 }, () => {
  it('register: loads the rule only once the password is focused, then refuses weak passwords without sending them', async () => {
    const a = account();
    const { page, errors } = await app.newPage();
    const seen = watch(page);
    await page.goto(`${app.url}/register`, { waitUntil: 'networkidle' });
    await page.getByRole('heading', { name: 'Create an account' }).waitFor();
    await stir(page);
    expect(seen.scripts).not.toContain(ruleFile);
    await page.getByLabel('Full name').fill(a.fullName);
    await page.getByLabel('Email').fill(a.email);
    await page.getByLabel('Password', { exact: true }).focus();
    await until('the password rule to load', async () => seen.scripts.includes(ruleFile) || undefined, 10_000, 50);

    await expectRefused(page, weakOnes(a), { password: 'Password', confirm: 'Confirm password', submit: 'Create account' });
    expect(seen.sets).toEqual([]);
    await page.getByLabel('Password', { exact: true }).fill(STRONG);
    await page.getByLabel('Confirm password').fill(STRONG);
    await page.getByRole('button', { name: 'Create account' }).click();
    await expectToast(page, 'Account created successfully!');
    expect(seen.sets).toEqual(['/auth/v1/signup']);
    expect(errors).toEqual([]);
  });

  it('reset-password-confirm: refuses them for the account the link is for, then sets a strong one', async () => {
    const a = account();
    const user = await createTestUser(app.server, { email: a.email, fullName: a.fullName });
    expect((await app.server.client().auth.resetPasswordForEmail(user.email)).error).toBeNull();
    const link = await until(
      `a reset link mailed to ${user.email}`,
      async () => {
        const { rows } = await app.server.deps.db.query<{ text_body: string }>(
          'select text_body from nodeharbor.outbox where to_address = $1 order by id desc limit 1',
          [user.email],
        );
        return rows[0]?.text_body.match(/https?:\/\/\S+\/auth\/v1\/verify\?\S+/)?.[0];
      },
      10_000,
      100,
    );
    const { page, errors } = await app.newPage();
    const seen = watch(page);
    await page.goto(link);
    await page.getByRole('heading', { name: 'Set new password' }).waitFor();
    expect(seen.scripts).not.toContain(ruleFile);

    await expectRefused(page, weakOnes(a), { password: 'New password', confirm: 'Confirm new password', submit: 'Update password' });
    expect(seen.sets).toEqual([]);
    await page.getByLabel('New password', { exact: true }).fill(STRONG);
    await page.getByLabel('Confirm new password').fill(STRONG);
    await page.getByRole('button', { name: 'Update password' }).click();
    await expectToast(page, 'Password updated successfully!');
    await page.waitForURL(/\/login$/);
    expect(seen.sets).toEqual(['/auth/v1/user']);
    expect(errors).toEqual([]);
  });

  it('settings › security: refuses them for the signed-in user, then changes to a strong one', async () => {
    const a = account();
    const user = await createTestUser(app.server, { email: a.email, fullName: a.fullName });
    const { page, errors } = await app.newPage();
    await signIn(page, app.url, user.email, user.password);
    const seen = watch(page);
    await openSection(page, 'Settings');
    await page.getByRole('tab', { name: 'Security' }).click();
    const form = page.getByRole('region', { name: 'Change Password' });
    await form.getByLabel('Current password').fill(user.password);

    await expectRefused(page, weakOnes(a), { password: 'New password', confirm: 'Confirm new password', submit: 'Update Password' });
    expect(seen.sets).toEqual([]);
    await form.getByLabel('New password', { exact: true }).fill(STRONG);
    await form.getByLabel('Confirm new password').fill(STRONG);
    await form.getByRole('button', { name: 'Update Password' }).click();
    await expectToast(page, 'Password updated successfully', 'Your password has been changed.');
    expect(seen.sets).toEqual(['/auth/v1/user']);
    expect((await app.server.client().auth.signInWithPassword({ email: user.email, password: STRONG })).error).toBeNull();
    expect(errors).toEqual([]);
  });
});
