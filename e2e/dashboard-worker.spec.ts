import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestUser, GALA_KEY, TOWN_STAR } from '../test/helpers/users';
import { openSection } from './dashboard-helpers';
import { expectText } from './helpers/page-tools';
import { signIn, startApp, type TestApp } from './helpers/app';

let app: TestApp;
beforeAll(async () => {
  // The real job worker and simulated provisioner, slow enough to see each state.
  app = await startApp({ PROVISION_INSTALL_SECONDS: '3', PROVISION_DELETE_SECONDS: '3' });
});
afterAll(() => app?.stop());

it('shows a service installing, then active, then deleting and gone, as the worker moves it, without a reload', async () => {
  const user = await createTestUser(app.server, { credits: 10 });
  const { page } = await app.newPage();
  await signIn(page, app.url, user.email, user.password);
  await openSection(page, 'Services');
  const { error } = await user.client.rpc('create_service_securely', { p_name: 'by-worker', p_description: null, p_api_key: GALA_KEY, p_product_id: TOWN_STAR });
  expect(error).toBeNull();
  await page.reload();
  await expectText(page, 'Installing');
  await expectText(page, 'Active', 20_000);
  const events = await app.server.deps.db.query<{ event: string }>(
    `select e.event from public.service_events e join private.services s on s.id = e.service_id where s.name = 'by-worker' order by e.id`,
  );
  expect(events.rows.map((r) => r.event)).toContain('installed');

  await page.getByRole('button', { name: 'Delete by-worker' }).click();
  const confirm = page.getByRole('alertdialog').or(page.getByRole('dialog'));
  await confirm.getByLabel('I understand this action cannot be undone').check();
  await confirm.getByRole('button', { name: 'Delete Service' }).click();
  await expectText(page, 'Deleting');
  await expectText(page, 'No services yet', 20_000);

  // Not expired, so it waits in Billing to be reused.
  await openSection(page, 'Billing');
  await expectText(page, 'by-worker');
});
