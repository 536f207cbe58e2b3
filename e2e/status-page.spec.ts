import { beforeAll, expect, it } from 'vitest';
import { statusPageMessages } from '../src/shared/status-page';
import { createTestUser } from '../test/helpers/users';
import { expectAccessibleIn, seriousViolations } from './helpers/axe';
import { DESKTOP, MOBILE, sharedApp, signIn, type TestApp } from './helpers/app';
import { expectText, expectToast } from './helpers/page-tools';

// The public status page (issue 37, item 3): an admin opens an incident and follows it in the admin
// area; /status shows it to a visitor whose browser runs no JavaScript, at a phone's width, with
// nothing serious for axe in either colour scheme; the footer leads there when STATUS_URL is unset.

let app: TestApp;
beforeAll(async () => {
  app = await sharedApp();
});

it('an admin opens an incident and follows it; /status shows it with no script, and the footer links to it', async () => {
  const admin = await createTestUser(app.server, { admin: true });
  const { page, errors } = await app.newPage(DESKTOP);
  await signIn(page, app.url, admin.email, admin.password);
  await page.goto(`${app.url}/admin?tab=status`);
  const form = page.getByRole('region', { name: 'Open an incident' });
  await form.getByRole('button', { name: 'Open incident' }).click();
  await expectText(page, statusPageMessages.titleRequired);
  await expectText(page, statusPageMessages.bodyRequired);
  await form.getByLabel('Title').fill('Town Star nodes restarting');
  await form.getByLabel('Affects').selectOption({ label: 'Town Star' });
  await form.getByLabel('Impact').selectOption({ label: 'Major' });
  await form.getByLabel('What is happening').fill('Nodes on one host restart.');
  await form.getByRole('button', { name: 'Open incident' }).click();
  await expectToast(page, 'Incident opened', 'Town Star nodes restarting');

  const incident = page.getByRole('listitem', { name: 'Town Star nodes restarting' });
  await incident.getByText('Nodes on one host restart.').waitFor();
  await incident.getByLabel('Status', { exact: true }).selectOption({ label: 'Identified' });
  await incident.getByLabel('Update', { exact: true }).fill('A faulty disk: moving the nodes.');
  await incident.getByRole('button', { name: 'Post update' }).click();
  await expectToast(page, 'Update posted', 'Identified: Town Star nodes restarting');
  await incident.getByText('A faulty disk: moving the nodes.').waitFor();
  await expectAccessibleIn(page, 'light', 'Admin › Status page');
  expect(errors).toEqual([]);

  // A visitor without JavaScript, at a phone's width.
  const plain = await app.browser.newContext({ javaScriptEnabled: false, viewport: MOBILE });
  const visitor = await plain.newPage();
  const res = await visitor.goto(`${app.url}/status`);
  expect(res?.status()).toBe(200);
  await expect(visitor.getByRole('heading', { level: 1 }).innerText()).resolves.toBe('System status');
  await visitor.getByText('Major outage').waitFor();
  const shown = visitor.getByRole('article').filter({ hasText: 'Town Star nodes restarting' });
  await shown.getByText('A faulty disk: moving the nodes.').waitFor();
  await shown.getByText('Nodes on one host restart.').waitFor();
  await plain.close();

  // The same page for axe, which needs a script of its own: light on a laptop, dark on a phone, with nothing wider than the screen.
  for (const [colorScheme, viewport] of [
    ['light', DESKTOP],
    ['dark', MOBILE],
  ] as const) {
    const context = await app.browser.newContext({ colorScheme, viewport });
    const p = await context.newPage();
    await p.goto(`${app.url}/status`);
    await p.getByText('Major outage').waitFor();
    const found = await seriousViolations(p);
    expect(found, `${colorScheme}:\n${found.join('\n')}`).toEqual([]);
    expect(await p.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(viewport.width);
    await context.close();
  }

  // The footer of every page leads to it, STATUS_URL being unset.
  await page.goto(`${app.url}/`);
  const link = page.getByRole('contentinfo').getByRole('link', { name: 'System Status' });
  await expect(link.getAttribute('href')).resolves.toBe('/status');
  await link.click();
  await page.waitForURL(`${app.url}/status`);
  await page.getByText('Major outage').waitFor();
});
