import { afterAll, beforeAll, expect, it } from 'vitest';
import { installFailureText } from '../src/shared/install-failure';
import { createTestUser, GALA_KEY, TOWN_STAR } from '../test/helpers/users';
import { openSection } from './dashboard-helpers';
import { expectText } from './helpers/page-tools';
import { signIn, startApp, type TestApp } from './helpers/app';

let app: TestApp;
beforeAll(async () => {
  // The real job worker and simulated provisioner, slow enough to see each state: a pace of its own.
  app = await startApp({ PROVISION_INSTALL_SECONDS: '3', PROVISION_DELETE_SECONDS: '3' });
});
afterAll(() => app?.stop());

it('shows a service installing, then active, then deleting and gone, as the worker moves it, without a reload', async () => {
  const user = await createTestUser(app.server, { credits: 10 });
  const { page } = await app.newPage();
  await signIn(page, app.url, user.email, user.password);
  await openSection(page, 'Services');
  const { error } = await user.client.rpc('create_service_securely', {
    p_name: 'by-worker',
    p_description: null,
    p_api_key: GALA_KEY,
    p_product_id: TOWN_STAR,
  });
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

it('shows an installation the worker could not run as failed, in the owner’s words, and installs it on Retry once the plan is fixed', async () => {
  // A plan whose node has no image: the worker cannot run it, whatever the engine.
  const plan = '00000000-0000-4000-8000-0000000000bb';
  await app.server.deps.db.query(
    `insert into public.products (id, name, price, is_active, renew_interval, base_product_code, node_image)
     values ($1, 'Imageless', 0, true, '1 MONTH', 'IMAGELESS', null)`,
    [plan],
  );
  const user = await createTestUser(app.server);
  const { page } = await app.newPage();
  await signIn(page, app.url, user.email, user.password);
  await openSection(page, 'Services');
  await page.getByRole('button', { name: 'New Service' }).click();
  const dialog = page.getByRole('dialog', { name: 'Create New Service' });
  await dialog.getByLabel('Service Name').fill('no-image');
  await dialog.getByRole('radio', { name: /^Imageless/ }).check();
  await dialog.getByLabel('API Key', { exact: true }).fill(GALA_KEY);
  await dialog.getByRole('button', { name: 'Create Service' }).click();
  // Created as installing, so the list polls, and shows the worker's verdict without a reload.
  const card = page.getByRole('article', { name: 'no-image' });
  await card.getByText('Installation failed', { exact: true }).waitFor({ timeout: 20_000 });
  // The owner's words; the missing image is the operator's to fix, and theirs to read (issue 36, item 7).
  await card.getByText(installFailureText('not_started')).waitFor();
  expect(await card.getByText(/IMAGELESS/).count()).toBe(0);

  await app.server.deps.db.query(`update public.products set node_image = 'nodeharbor/test-node:1' where id = $1`, [plan]);
  await card.getByRole('button', { name: 'Retry no-image' }).click();
  await card.getByText('Installing').waitFor();
  await card.getByText('Active').waitFor({ timeout: 20_000 });
  const events = await app.server.deps.db.query<{ event: string }>(
    `select e.event from public.service_events e join private.services s on s.id = e.service_id where s.name = 'no-image' order by e.id`,
  );
  expect(events.rows.map((r) => r.event)).toEqual(expect.arrayContaining(['install_failed', 'retry_requested', 'installed']));
});
