import type { Locator, Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { createJobDeps } from '../src/server/jobs/app-worker';
import { installNode } from '../src/server/provisioning/install-node';
import { messages } from '../src/shared/validation';
import { createTestUser, LICENCE_KEY, MASTER_NODE } from '../test/helpers/users';
import { openSection, serviceAction } from './dashboard-helpers';
import { stir } from './helpers/page-tools';
import { sharedApp, signIn, type TestApp, type Viewport } from './helpers/app';

// One message per problem (issue 17): a field says at most one thing, its most specific, and only
// once it has been left or its form submitted; never because another field changed.

/** A common laptop and a common phone (issue 17). */
const WIDE: Viewport = { width: 1366, height: 850 };
const PHONE: Viewport = { width: 390, height: 844 };

let app: TestApp;
beforeAll(async () => {
  app = await sharedApp({ RUN_WORKER: 'false' });
});

/** The messages a field shows: the error lines inside the block of its label and control. */
const messagesOf = (field: Locator) => field.locator('xpath=..').locator('p.text-destructive').allInnerTexts();

/** Expects exactly this one message, or none, under the field, and the control to point at it. */
async function expectMessage(field: Locator, message: string | null) {
  await expect.poll(() => messagesOf(field)).toEqual(message === null ? [] : [message]);
  if (message === null) return expect(field.getAttribute('aria-invalid')).resolves.toBeNull();
  const describedBy = (await field.getAttribute('aria-describedby')) ?? '';
  await expect(
    field
      .page()
      .locator(`[id="${describedBy.split(' ')[0]}"]`)
      .innerText(),
  ).resolves.toBe(message);
}

/** Nothing in `scope` reads as an error: no message line, no invalid control. */
async function expectNoMessages(scope: Locator) {
  await expect(scope.locator('p.text-destructive').allInnerTexts()).resolves.toEqual([]);
  await expect(scope.locator('[aria-invalid="true"]').count()).resolves.toBe(0);
}

/** Types like a hand, key by key, so that each keystroke is a change of its own. */
async function typeSlowly(page: Page, field: Locator, text: string) {
  await field.click();
  await page.keyboard.type(text);
}

describe.each([
  ['desktop', WIDE],
  ['phone', PHONE],
])('one message per problem, %s', (_, viewport) => {
  it('sign-in and reset request: nothing before a field is left, then its most specific message', async () => {
    const { page, errors } = await app.newPage(viewport);
    await page.goto(`${app.url}/login`);
    await stir(page);
    const form = page.locator('form');
    const email = page.getByLabel('Email');
    const password = page.getByLabel('Password');
    // Typing the password leaves the untouched e-mail alone.
    await typeSlowly(page, password, 'secret');
    await expectNoMessages(form);
    // Left empty, the e-mail says it is missing, not also that it is malformed.
    await email.focus();
    await email.blur();
    await expectMessage(email, messages.credentialsMissing);
    await expectMessage(password, null);
    await email.fill('ada@');
    await expectMessage(email, messages.email);
    await password.fill('');
    await page.getByRole('button', { name: 'Sign In' }).click();
    await expectMessage(password, messages.credentialsMissing);
    await expectMessage(email, messages.email);

    await page.goto(`${app.url}/reset-password`);
    await stir(page);
    const resetEmail = page.getByLabel('Email');
    await typeSlowly(page, resetEmail, 'ada@');
    await expectNoMessages(page.locator('form'));
    await resetEmail.blur();
    await expectMessage(resetEmail, messages.email);
    expect(errors).toEqual([]);
  });

  it('the create dialog: a plan choice wakes no other field, one shortfall alert with Billing, "License key" for the Master Node', async () => {
    // $1: less than any plan costs.
    const user = await createTestUser(app.server, { credits: 1 });
    const { page, errors } = await app.newPage(viewport);
    await signIn(page, app.url, user.email, user.password);
    await openSection(page, 'Services');
    await page.getByRole('button', { name: 'New Service' }).click();
    const dialog = page.getByRole('dialog', { name: 'Create New Service' });
    const name = dialog.getByLabel('Service Name');
    await name.waitFor();
    await expectNoMessages(dialog);

    // Choosing a plan first: the name and key fields, untouched, stay quiet.
    await dialog.getByRole('radio', { name: /^Town Star \$10\.00/ }).click();
    const key = dialog.getByLabel('API Key', { exact: true });
    await key.waitFor();
    await expectNoMessages(dialog);

    // No funds: one alert, with the amount and a way to Billing, and no second sentence about it.
    const alert = dialog.getByRole('alert');
    await expect.poll(() => alert.count()).toBe(1);
    await expect(alert.innerText()).resolves.toBe('You need $9.00 more to create this service: add funds on the Billing page.');
    await expect(alert.getByRole('link', { name: 'add funds on the Billing page' }).getAttribute('href')).resolves.toBe('/dashboard/billing');
    await expect(dialog.getByText(messages.insufficientFunds).count()).resolves.toBe(0);

    // The key says nothing while it is typed, then its one rule once left.
    await typeSlowly(page, key, 'short');
    await expectMessage(key, null);
    await key.blur();
    await expectMessage(key, messages.apiKeyDefaultLength());
    await expectMessage(name, null);

    // A name left empty is "required", not also too short; the hint makes way for it.
    await name.click();
    await page.keyboard.press('Tab');
    await expectMessage(name, messages.serviceNameRequired);
    await expect(dialog.getByText(messages.serviceNameHint).count()).resolves.toBe(0);
    await name.fill('a b');
    await expectMessage(name, messages.serviceNameSpaces);
    await name.fill('mn-1');
    await expectMessage(name, null);

    // The Master Node's key is a License Key: its label and its messages say so.
    await dialog.getByRole('radio', { name: /^Master Node \$3\.00/ }).click();
    const licence = dialog.getByLabel('Master Node License Key', { exact: true });
    await expectMessage(licence, messages.apiKeyFormat('############-####-####-####-############', 'License key'));
    await expect(dialog.getByText('License key must have the form ############-####-####-####-############').count()).resolves.toBe(1);
    await licence.fill('');
    await expectMessage(licence, 'License key is required');
    await licence.fill(LICENCE_KEY);
    await expectMessage(licence, null);
    await expect(alert.innerText()).resolves.toBe('You need $2.00 more to create this service: add funds on the Billing page.');
    await expect(dialog.getByRole('button', { name: 'Create Service' }).isDisabled()).resolves.toBe(true);

    await alert.getByRole('link', { name: 'add funds on the Billing page' }).click();
    await page.getByRole('heading', { level: 1, name: 'Billing' }).waitFor();
    expect(errors).toEqual([]);
  });

  it('the Master Node key change and a rename: quiet until left, then one "License key" message', async () => {
    const user = await createTestUser(app.server, { credits: 10 });
    const { data, error } = await user.client.rpc('create_service_securely', {
      p_name: 'mn-forms',
      p_description: null,
      p_api_key: LICENCE_KEY,
      p_product_id: MASTER_NODE,
    });
    if (error) throw error;
    const id = (data as { id: string }).id;
    await installNode(await createJobDeps(app.server.deps), id);
    const { page, errors } = await app.newPage(viewport);
    await signIn(page, app.url, user.email, user.password);
    await page.goto(`${app.url}/dashboard/services/${id}`);

    await serviceAction(page, 'mn-forms', 'Change key');
    const dialog = page.getByRole('dialog', { name: 'Change key' });
    const field = dialog.getByLabel('Master Node License Key');
    await field.waitFor();
    await expectNoMessages(dialog);
    await typeSlowly(page, field, 'MN-1');
    await expectMessage(field, null);
    await field.blur();
    await expectMessage(field, messages.apiKeyFormat('############-####-####-####-############', 'License key'));
    await field.fill('');
    await expectMessage(field, messages.apiKeyRequired('License key'));
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });

    await serviceAction(page, 'mn-forms', 'Rename');
    const rename = page.getByRole('dialog', { name: 'Rename' });
    const newName = rename.getByLabel('Service Name');
    await newName.waitFor();
    await newName.fill('');
    await expectNoMessages(rename);
    await newName.blur();
    await expectMessage(newName, messages.serviceNameRequired);
    await expect(rename.getByText(messages.serviceNameHint).count()).resolves.toBe(0);
    expect(errors).toEqual([]);
  });

  it('change password: the confirmation does not speak while the password is typed', async () => {
    const user = await createTestUser(app.server);
    const { page, errors } = await app.newPage(viewport);
    await signIn(page, app.url, user.email, user.password);
    await openSection(page, 'Settings');
    await page.getByRole('tab', { name: 'Security' }).click();
    const form = page.getByRole('region', { name: 'Change Password' });
    const current = form.getByLabel('Current password');
    const next = form.getByLabel('New password', { exact: true });
    const confirm = form.getByLabel('Confirm new password');

    await typeSlowly(page, next, 'a-longer-password');
    await expectNoMessages(form);
    await next.fill('abc');
    await next.blur();
    await expectMessage(next, messages.settingsPasswordShort);
    await expectMessage(confirm, null);
    await expectMessage(current, null);

    await confirm.fill('something-else');
    await confirm.blur();
    await expectMessage(confirm, messages.passwordsMismatch);
    // Retyping the password leaves the confirmation's message as it was until the password is left.
    await next.fill('');
    await typeSlowly(page, next, 'something-else');
    await expectMessage(next, null);
    await expectMessage(confirm, messages.passwordsMismatch);
    await next.blur();
    await expectMessage(confirm, null);

    await form.getByRole('button', { name: 'Update Password' }).click();
    await expectMessage(current, messages.currentPasswordRequired);
    await expectMessage(next, null);
    expect(errors).toEqual([]);
  });

  it('add funds and the admin add-credit form: a message once the field is left', async () => {
    const admin = await createTestUser(app.server, { admin: true });
    const { page, errors } = await app.newPage(viewport);
    await signIn(page, app.url, admin.email, admin.password);
    await openSection(page, 'Billing');
    const card = page.getByRole('region', { name: 'Add Funds' });
    const custom = card.getByLabel('Custom amount (USD)');
    await typeSlowly(page, custom, '0.5');
    await expectMessage(custom, null);
    await custom.blur();
    await expectMessage(custom, messages.topUpMin);
    await custom.fill('5.25');
    await expectMessage(custom, null);

    await page.goto(`${app.url}/admin`);
    await page.getByRole('button', { name: `Add credit to ${admin.email}` }).click();
    const dialog = page.getByRole('dialog', { name: 'Add credit' });
    const amount = dialog.getByLabel('Amount (USD)');
    const note = dialog.getByLabel('Note');
    await amount.waitFor();
    await typeSlowly(page, amount, '1.005');
    await expectNoMessages(dialog);
    await amount.blur();
    await expectMessage(amount, messages.adminCreditAmount);
    await expectMessage(note, null);
    await note.click();
    await note.blur();
    await expectMessage(note, messages.adminCreditNote);
    await amount.fill('0.07');
    await note.fill('Goodwill');
    await expectNoMessages(dialog);
    await expect(dialog.getByRole('button', { name: 'Add credit' }).isDisabled()).resolves.toBe(false);
    expect(errors).toEqual([]);
  });
});
