import type { Locator, Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { addCredits } from '../src/server/domain/credits';
import { authenticator } from '../test/helpers/mfa';
import { createTestUser, GALA_KEY, TOWN_STAR, type TestUser } from '../test/helpers/users';
import { openSection } from './dashboard-helpers';
import { expectToast, stir } from './helpers/page-tools';
import { sharedApp, signIn, type TestApp, type Viewport } from './helpers/app';

/** A common laptop and a common phone (issue 17). */
const DESKTOP: Viewport = { width: 1366, height: 850 };
const PHONE: Viewport = { width: 390, height: 844 };

let app: TestApp;
beforeAll(async () => {
  app = await sharedApp();
});

/** The element's background and text colours, and the theme's destructive colour with the text colour meant for it. */
const colours = (target: Locator) =>
  target.evaluate((el) => {
    const probe = document.createElement('span');
    probe.style.backgroundColor = 'var(--destructive)';
    probe.style.color = 'var(--destructive-foreground)';
    document.body.append(probe);
    const want = { background: getComputedStyle(probe).backgroundColor, text: getComputedStyle(probe).color };
    probe.remove();
    return { background: getComputedStyle(el).backgroundColor, text: getComputedStyle(el).color, want };
  });

async function expectDestructive(target: Locator, what: string) {
  const { background, text, want } = await colours(target);
  expect({ background, text }, what).toEqual(want);
}

async function openSecurity(page: Page) {
  await openSection(page, 'Settings');
  await page.getByRole('tab', { name: 'Security' }).click();
}

/** The names of the user's TOTP factors as stored, verified or not. */
async function storedFactorNames(user: TestUser): Promise<string[]> {
  const { rows } = await app.server.deps.db.query<{ friendly_name: string }>(
    'select friendly_name from auth.mfa_factors where user_id = $1 order by created_at',
    [user.id],
  );
  return rows.map((r) => r.friendly_name);
}

/** Enables two-factor sign-in through the Security tab with the name in its field, and confirms the recovery codes were seen. */
async function finishEnrolment(page: Page) {
  await page.getByRole('img', { name: 'QR code for your authenticator app' }).waitFor();
  const codes = authenticator((await page.getByTestId('totp-secret').innerText()).trim());
  await page.getByLabel('Verification code').fill(codes.next());
  await page.getByRole('button', { name: 'Verify and enable' }).click();
  await expectToast(page, 'Two-factor authentication enabled');
  await page.getByRole('button', { name: 'I have saved my codes' }).click();
}

const authenticators = (page: Page) => page.getByRole('list', { name: 'Authenticators' }).getByRole('listitem');

describe('polish that people notice', () => {
  for (const [size, viewport, theme] of [
    ['1366 px, light', DESKTOP, 'light'],
    ['390 px, dark', PHONE, 'dark'],
  ] as const) {
    it(`shows Delete service and Delete account, and their confirmations, in the destructive style at ${size}`, async () => {
      const user = await createTestUser(app.server, { credits: 20 });
      await user.client.rpc('create_service_securely', { p_name: 'town-1', p_description: null, p_api_key: GALA_KEY, p_product_id: TOWN_STAR });
      await user.client
        .from('profiles')
        .update({ darkmode_enabled: theme === 'dark' })
        .eq('id', user.id);
      const { page, errors } = await app.newPage(viewport);
      await signIn(page, app.url, user.email, user.password);
      await expect.poll(() => page.evaluate(() => document.documentElement.classList.contains('dark'))).toBe(theme === 'dark');

      await openSection(page, 'Services');
      const card = page.getByRole('article', { name: 'town-1' });
      await card.getByText('Active', { exact: true }).waitFor({ timeout: 20_000 });
      const deleteService = card.getByRole('button', { name: 'Delete town-1' });
      await expectDestructive(deleteService, "the card's Delete");
      await deleteService.click();
      const serviceDialog = page.getByRole('dialog', { name: 'Delete town-1?' });
      await expectDestructive(serviceDialog.getByRole('button', { name: 'Delete Service' }), "the dialog's Delete Service");
      await serviceDialog.getByRole('button', { name: 'Cancel' }).click();

      await openSecurity(page);
      const deleteAccount = page.getByRole('region', { name: 'Danger Zone' }).getByRole('button', { name: 'Delete Account' });
      await expectDestructive(deleteAccount, 'Delete Account');
      await deleteAccount.click();
      await expectDestructive(
        page.getByRole('dialog', { name: 'Delete your account?' }).getByRole('button', { name: 'Delete my account' }),
        'Delete my account',
      );
      expect(errors).toEqual([]);
    });
  }

  it('names a new authenticator "Authenticator app", or what the user types, and shows an old timestamp name as "Authenticator app"', async () => {
    // The default name, twice: a setup cancelled and started again under the same name.
    const first = await createTestUser(app.server);
    let { page, errors } = await app.newPage(DESKTOP);
    await signIn(page, app.url, first.email, first.password);
    await openSecurity(page);
    await expect(page.getByLabel('Authenticator name').inputValue()).resolves.toBe('Authenticator app');
    await page.getByRole('button', { name: 'Enable two-factor authentication' }).click();
    await page.getByRole('img', { name: 'QR code for your authenticator app' }).waitFor();
    await page.getByRole('button', { name: 'Cancel' }).click();
    await page.getByRole('button', { name: 'Enable two-factor authentication' }).click();
    await finishEnrolment(page);
    await expect(authenticators(page).innerText()).resolves.toContain('Authenticator app');
    expect(await storedFactorNames(first)).toEqual(['Authenticator app']);
    expect(errors).toEqual([]);

    // A name of the user's own, trimmed.
    const second = await createTestUser(app.server);
    ({ page, errors } = await app.newPage(PHONE));
    await signIn(page, app.url, second.email, second.password);
    await openSecurity(page);
    await page.getByLabel('Authenticator name').fill('  Work phone ');
    await page.getByRole('button', { name: 'Enable two-factor authentication' }).click();
    await finishEnrolment(page);
    await authenticators(page).getByRole('button', { name: 'Remove Work phone' }).waitFor();
    expect(await storedFactorNames(second)).toEqual(['Work phone']);
    expect(errors).toEqual([]);

    // Enrolled before names were asked for: named after its minute.
    const third = await createTestUser(app.server);
    const { data, error } = await third.client.auth.mfa.enroll({ factorType: 'totp', friendlyName: 'Authenticator 2025-01-31T09:30' });
    if (error) throw error;
    const codes = authenticator(data.totp.secret);
    expect((await third.client.auth.mfa.challengeAndVerify({ factorId: data.id, code: codes.next() })).error).toBeNull();
    ({ page, errors } = await app.newPage(DESKTOP));
    await page.goto(`${app.url}/login`);
    await stir(page);
    await page.getByLabel('Email').fill(third.email);
    await page.getByLabel('Password').fill(third.password);
    await page.getByRole('button', { name: 'Sign In' }).click();
    await page.getByLabel('Authentication code').fill(codes.next());
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.waitForURL(/\/dashboard$/);
    await openSecurity(page);
    await authenticators(page).getByRole('button', { name: 'Remove Authenticator app' }).waitFor();
    await expect(authenticators(page).innerText()).resolves.not.toContain('2025');
    expect(errors).toEqual([]);
  });

  it("shows the Account page's read-only values in the text colour, labelled, and makes them editable with Edit (the e-mail never)", async () => {
    const user = await createTestUser(app.server, { fullName: 'Emmy Noether' });
    const { page, errors } = await app.newPage(DESKTOP);
    await signIn(page, app.url, user.email, user.password);
    await openSection(page, 'Account');
    const name = page.getByLabel('Full name');
    const email = page.getByLabel('Email');
    await expect.poll(() => name.inputValue()).toBe('Emmy Noether');
    await expect(email.inputValue()).resolves.toBe(user.email);
    const look = (field: Locator) =>
      field.evaluate((el) => ({ color: getComputedStyle(el).color, opacity: getComputedStyle(el).opacity, body: getComputedStyle(document.body).color }));
    for (const [what, field] of [
      ['Full name', name],
      ['Email', email],
    ] as const) {
      await expect(field.isEditable(), what).resolves.toBe(false);
      await expect(field.isDisabled(), `${what}: a value, not a disabled field`).resolves.toBe(false);
      const { color, opacity, body } = await look(field);
      expect({ color, opacity }, what).toEqual({ color: body, opacity: '1' });
    }
    await page.getByRole('button', { name: 'Edit' }).click();
    await expect(name.isEditable()).resolves.toBe(true);
    await expect(email.isEditable()).resolves.toBe(false);
    expect(errors).toEqual([]);
  });

  for (const [size, viewport] of [
    ['1366 px', DESKTOP],
    ['390 px', PHONE],
  ] as const) {
    it(`shows a cut-off transaction text in full on hover and on keyboard focus at ${size}`, async () => {
      const user = await createTestUser(app.server);
      const text = 'Goodwill credit for the node outage of 12 March, with our apologies for the rewards it cost you';
      await addCredits(app.server.deps.db, user.id, 5, text);
      const { page, errors } = await app.newPage(viewport);
      await signIn(page, app.url, user.email, user.password);
      await openSection(page, 'Billing');
      const description = page.getByRole('list', { name: 'Recent transactions' }).getByText(text);
      await description.waitFor();
      const shown = () =>
        description.evaluate((el) => ({
          cut: el.scrollWidth > el.clientWidth,
          lines: Math.round(el.clientHeight / parseFloat(getComputedStyle(el).lineHeight)),
        }));
      expect(await shown()).toEqual({ cut: true, lines: 1 });

      await description.hover();
      const hovered = await shown();
      expect(hovered.cut).toBe(false);
      expect(hovered.lines).toBeGreaterThan(1);
      await page.mouse.move(0, 0);
      await expect.poll(shown).toEqual({ cut: true, lines: 1 });

      // From the keyboard: the text is a tab stop of its own.
      await page.getByRole('button', { name: 'Payment processing info' }).focus();
      await page.keyboard.press('Tab');
      await expect(description.evaluate((el) => el === document.activeElement)).resolves.toBe(true);
      const focused = await shown();
      expect(focused.cut).toBe(false);
      expect(focused.lines).toBeGreaterThan(1);
      expect(errors).toEqual([]);
    });
  }
});
