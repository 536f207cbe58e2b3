import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { API_TOKEN_PATTERN, apiTokenMessages } from '../src/shared/api-tokens';
import { createTestUser, type TestUser } from '../test/helpers/users';
import { expectAccessibleIn } from './helpers/axe';
import { expectText, expectToast } from './helpers/page-tools';
import { sharedApp, signIn, type TestApp, type Viewport } from './helpers/app';

// Settings › API tokens (issue 37, item 4): create a token and see its secret once, use it on
// /api/v1, see its last use, revoke it; at a laptop's width in the light theme and a phone's in the
// dark, with nothing serious for axe. Then the API's reference at /docs/api (item 5).

const LAPTOP: Viewport = { width: 1366, height: 850 };
const PHONE: Viewport = { width: 390, height: 844 };

let app: TestApp;
beforeAll(async () => {
  app = await sharedApp();
});

async function userIn(theme: 'light' | 'dark'): Promise<TestUser> {
  const user = await createTestUser(app.server, { credits: 25 });
  const { error } = await user.client
    .from('profiles')
    .update({ darkmode_enabled: theme === 'dark' })
    .eq('id', user.id);
  if (error) throw error;
  return user;
}

async function expectNoOverflow(page: Page, where: string) {
  const { scrollWidth, innerWidth } = await page.evaluate(() => ({ scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth }));
  expect(scrollWidth, where).toBeLessThanOrEqual(innerWidth);
}

const balance = (token: string) => fetch(`${app.url}/api/v1/balance`, { headers: { authorization: `Bearer ${token}` } });

describe('Settings › API tokens', () => {
  for (const [viewport, theme] of [
    [LAPTOP, 'light'],
    [PHONE, 'dark'],
  ] as const) {
    it(`creates a token shown once, uses it, and revokes it, at ${viewport.width} px in the ${theme} theme`, async () => {
      const user = await userIn(theme);
      const { page, errors } = await app.newPage(viewport);
      await signIn(page, app.url, user.email, user.password);
      await page.goto(`${app.url}/dashboard/settings/api-tokens`);
      const card = page.getByRole('region', { name: 'API tokens' });
      await card.getByText('You have no API tokens.').waitFor();
      await expect(card.getByRole('link', { name: 'API documentation' }).getAttribute('href')).resolves.toBe('/docs/api');
      await card.getByText('Signing out everywhere or changing your password does not revoke your tokens', { exact: false }).waitFor();
      await expectAccessibleIn(page, theme, 'Settings › API tokens');
      await expectNoOverflow(page, 'the empty list');

      // The form's rules, in the shared words, before anything is sent.
      await card.getByRole('button', { name: 'Create token' }).click();
      const form = page.getByRole('dialog', { name: 'Create API token' });
      await form.getByRole('button', { name: 'Create token' }).click();
      await expectText(page, apiTokenMessages.nameRequired);
      await expectText(page, apiTokenMessages.scopesRequired);
      const name = `deploy-${viewport.width}-${theme}`;
      await form.getByLabel('Name', { exact: true }).fill(name);
      await form.getByRole('checkbox', { name: /billing:read/ }).check();
      await form.getByLabel('Expires after').selectOption({ label: '90 days' });
      await form.getByLabel('Allowed addresses (optional)').fill('10.1');
      await expectText(page, apiTokenMessages.allowedIpInvalid('10.1'));
      await form.getByLabel('Allowed addresses (optional)').fill('127.0.0.1\n2001:db8::/32');
      await expectAccessibleIn(page, theme, 'the create dialog');
      await expectNoOverflow(page, 'the create dialog');
      await form.getByRole('button', { name: 'Create token' }).click();

      // The secret, once, with its warning and a copy button.
      const shown = page.getByRole('dialog', { name: 'Your new API token' });
      await shown.getByText('Copy your token now: it will not be shown again.').waitFor();
      const token = (await shown.getByLabel('API token').innerText()).trim();
      expect(token).toMatch(API_TOKEN_PATTERN);
      await expectAccessibleIn(page, theme, 'the new token');
      await expectNoOverflow(page, 'the new token');
      await shown.getByRole('button', { name: 'Copy token' }).click();
      await expectToast(page, 'Token copied');
      await expect(page.evaluate(() => navigator.clipboard.readText())).resolves.toBe(token);
      await shown.getByRole('button', { name: 'Done' }).click();
      await shown.waitFor({ state: 'detached' });

      const item = card.getByRole('listitem').filter({ hasText: name });
      await item.getByText(`${token.slice(0, 12)}…`).waitFor();
      await item.getByText('Never used').waitFor();
      await item.getByText('billing:read').waitFor();
      await item.getByText('Only from 127.0.0.1, 2001:db8::/32').waitFor();
      expect(await page.content()).not.toContain(token.slice(12));

      // Used from a script, it shows when and from where.
      const used = await balance(token);
      expect({ status: used.status, body: await used.json() }).toEqual({ status: 200, body: { balance: 25 } });
      await page.reload();
      await item.getByText(/^Last used .+ from 127\.0\.0\.1$/).waitFor();
      await expectAccessibleIn(page, theme, 'a used token');
      await expectNoOverflow(page, 'a used token');

      // Revoked, after a confirmation: gone from the list, and refused.
      await item.getByRole('button', { name: `Revoke ${name}` }).click();
      const confirm = page.getByRole('dialog', { name: `Revoke ${name}?` });
      await expectAccessibleIn(page, theme, 'the revoke confirmation');
      await confirm.getByRole('button', { name: 'Revoke token' }).click();
      await expectToast(page, 'Token revoked', `${name} no longer works.`);
      await card.getByText('You have no API tokens.').waitFor();
      const refused = await balance(token);
      expect({ status: refused.status, body: await refused.json() }).toEqual({
        status: 401,
        body: { code: 'invalid_token', message: apiTokenMessages.invalidToken },
      });
      expect(errors).toEqual([]);
    });
  }
});

it('opens from the Settings tabs, and keeps API tokens in the address', async () => {
  const user = await createTestUser(app.server);
  const { page } = await app.newPage(LAPTOP);
  await signIn(page, app.url, user.email, user.password);
  await page.goto(`${app.url}/dashboard/settings`);
  await page.getByRole('tab', { name: 'API tokens' }).click();
  await page.waitForURL(/\/dashboard\/settings\/api-tokens$/);
  await page.getByRole('region', { name: 'API tokens' }).waitFor();
});

it('shows the API reference at /docs/api from our own origin: every operation, with its samples', async () => {
  const { page, errors } = await app.newPage(LAPTOP);
  const elsewhere: string[] = [];
  page.on('request', (r) => {
    if (!r.url().startsWith(app.url) && !r.url().startsWith('data:')) elsewhere.push(r.url());
  });
  await page.goto(`${app.url}/docs/api`);
  const doc = (await (await fetch(`${app.url}/api/openapi.json`)).json()) as { paths: Record<string, Record<string, { summary: string; tags: string[] }>> };
  const sidebar = page.locator('aside, nav').first();
  // The sidebar holds each tag's operations; the first tag is open, the others open on a click.
  for (const op of Object.values(doc.paths).flatMap((item) => Object.values(item))) {
    const entry = sidebar.getByText(op.summary, { exact: true });
    if (!(await entry.isVisible())) await sidebar.getByText(op.tags[0]!, { exact: true }).click();
    await entry.waitFor();
  }
  await page.getByText('curl -X POST', { exact: false }).first().waitFor();
  expect(elsewhere).toEqual([]);
  expect(errors).toEqual([]);
});
