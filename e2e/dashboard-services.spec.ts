import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addCredits } from '../src/server/domain/credits';
import { installFailureText, type InstallFailureCause } from '../src/shared/install-failure';
import { createService, createTestUser, GALA_KEY, LICENCE_KEY, TOWN_STAR } from '../test/helpers/users';
import { until } from '../test/helpers/wait';
import { openSection } from './dashboard-helpers';
import { expectText, expectToast, holdRequests, serverError } from './helpers/page-tools';
import { DESKTOP, MOBILE, signIn, startApp, type TestApp, type Viewport } from './helpers/app';

let app: TestApp;
beforeAll(async () => {
  // This journey sets the worker's pace itself (below); dashboard-worker.spec.ts runs the real one.
  // Its own server: it finds and changes services by name, whoever owns them.
  app = await startApp({ RUN_WORKER: 'false' });
});
afterAll(() => app?.stop());

/**
 * The worker's part, done when the test says so through the same service-role RPCs the worker
 * calls: the Installing and Deleting states are asserted at leisure, never raced.
 */
async function workerFinishes(op: 'complete_service_installation' | 'complete_service_deletion', name: string) {
  const { rows } = await app.server.deps.db.query<{ id: string }>('select id from private.services where name = $1', [name]);
  if (rows.length === 0) throw new Error(`no service named ${name}`);
  for (const { id } of rows) {
    const { error } = await app.server.serviceClient().rpc(op, { p_service_id: id });
    if (error) throw error;
  }
}

/**
 * The worker's verdict on a node that cannot run: the same function the worker calls
 * (installing → failed, with the engine's reason for the admins, its cause for the owner, and an
 * install_failed event).
 */
async function workerFails(name: string, reason: string, cause: InstallFailureCause = 'not_started') {
  const { rows } = await app.server.deps.db.query<{ changed: boolean | null }>(
    'select private.fail_service_installation(id, $2, $3) as changed from private.services where name = $1',
    [name, reason, cause],
  );
  if (!rows.length || !rows.every((r) => r.changed)) throw new Error(`${name} was not installing`);
}

const stateOf = async (name: string) =>
  (await app.server.deps.db.query<{ state: string }>('select state::text from private.services where name = $1', [name])).rows[0]?.state;

/**
 * A Services list that polls: another user's, with a service installing (nothing finishes it
 * here), which the page reads again every 3 s. Its reads measure time as the app itself counts
 * it, for a check that another page reads nothing meanwhile.
 */
async function pollingList() {
  const user = await createTestUser(app.server, { credits: 10 });
  await createService(user, 'metronome');
  const { page, context } = await app.newPage(DESKTOP);
  let reads = 0;
  page.on('request', (r) => {
    if (new URL(r.url()).pathname === '/rest/v1/services') reads += 1;
  });
  await signIn(page, app.url, user.email, user.password);
  await openSection(page, 'Services');
  await page.getByRole('article', { name: 'metronome' }).getByText('Installing').waitFor();
  return {
    /** Resolves once the list has been read `n` more times from now. */
    async reads(n: number) {
      const target = reads + n;
      await until(`${n} more reads of the polling list`, () => reads >= target, 30_000);
    },
    close: () => context.close(),
  };
}

async function newServiceDialog(page: Page) {
  await page.getByRole('button', { name: 'New Service' }).click();
  const dialog = page.getByRole('dialog', { name: 'Create New Service' });
  await dialog.waitFor();
  return dialog;
}

async function journey(viewport: Viewport) {
  const user = await createTestUser(app.server, { credits: 5, fullName: 'Ada Lovelace' });
  const { page, errors } = await app.newPage(viewport);
  const notices: { eventType: string; userEmail: string; serviceData: { name: string } }[] = [];
  page.on('request', (r) => {
    if (new URL(r.url()).pathname === '/functions/v1/send-sqs-message') notices.push(r.postDataJSON());
  });
  await signIn(page, app.url, user.email, user.password);

  // Overview of a new account.
  await page.getByRole('heading', { level: 1, name: 'Dashboard' }).waitFor();
  await expect.poll(() => page.getByRole('group', { name: 'Total Services' }).innerText()).toContain('0');
  await expectText(page, '$5.00');
  await expectText(page, 'No scheduled payments');
  await page.getByRole('link', { name: 'Create Service' }).click();
  await page.getByRole('heading', { level: 1, name: 'Services' }).waitFor();
  await expectText(page, 'No services yet');

  // Every create message of spec §5 on the way to a valid form, each field's once it has been left.
  let dialog = await newServiceDialog(page);
  // Beside the prices: what a failed installation costs.
  await dialog
    .getByText('The paid period starts when your node first runs, and a failed installation costs nothing: its charge comes back to your balance at once.')
    .waitFor();
  const name = dialog.getByLabel('Service Name');
  await expectText(page, '3-16 characters, letters/numbers/hyphens/underscores only, cannot start/end with - or _');
  // Passing through the plans without choosing one.
  await dialog.getByRole('radio', { name: /^Town Star \$10\.00/ }).focus();
  await page.keyboard.press('Tab');
  await expectText(page, 'Please select a service plan');
  await name.fill('ab');
  await name.blur();
  for (const [value, message] of [
    ['ab', 'Service name must be at least 3 characters long'],
    ['abcdefghijklmnopq', 'Service name must be no more than 16 characters long'],
    ['my node', 'Service name cannot contain spaces'],
    ['my.node', 'Service name can only contain letters, numbers, hyphens, and underscores'],
    ['-node', 'Service name cannot start or end with a hyphen or underscore'],
    ['', 'Service name is required'],
  ] as const) {
    await name.fill(value);
    await expectText(page, message);
  }
  await name.fill('town-1');
  const key = dialog.getByLabel('API Key', { exact: true });
  await expect(key.getAttribute('placeholder')).resolves.toBe('Enter your API Key');
  await key.fill('x');
  await key.blur();
  await key.fill('');
  await expectText(page, 'API key is required');
  await key.fill('short=');
  await expectText(page, 'API key must be 44-46 characters long');
  await dialog.getByRole('radio', { name: /^Town Star \$10\.00/ }).check();
  await expect(dialog.getByText('Please select a service plan').count()).resolves.toBe(0);
  await key.fill(`${'A'.repeat(20)} ${'A'.repeat(22)}=`);
  await expectText(page, 'API key cannot contain spaces');
  await key.fill('A'.repeat(44));
  await expectText(page, 'API key must end with "="');
  await key.fill(`${'A'.repeat(42)}!=`);
  await expectText(page, 'API key contains invalid characters');
  await key.fill(GALA_KEY);
  // Short of funds: one alert, with the amount and the way to Billing (spec §5 step 7 is the server's answer).
  await expect(dialog.getByRole('alert').innerText()).resolves.toBe('You need $5.00 more to create this service: add funds on the Billing page.');
  const submit = dialog.getByRole('button', { name: 'Create Service' });
  await expect(submit.isDisabled()).resolves.toBe(true);
  await page.keyboard.press('Escape');

  // With funds the service is created, charged once, and installs.
  await addCredits(app.server.deps.db, user.id, 45, 'Test top-up');
  await page.reload();
  await expectText(page, 'No services yet');
  dialog = await newServiceDialog(page);
  await dialog.getByLabel('Service Name').fill('town-1');
  await dialog.getByRole('radio', { name: /^Town Star \$10\.00/ }).check();
  await dialog.getByLabel('API Key', { exact: true }).fill(GALA_KEY);
  await dialog.getByRole('button', { name: 'Create Service' }).click();
  await expectToast(page, 'Service Created', 'Your new service has been created successfully.');
  const card = page.getByRole('article', { name: 'town-1' });
  await card.getByText('Installing').waitFor();
  await card.getByText('Renews in 30 days').or(card.getByText('Renews in 31 days')).first().waitFor();
  await expect(card.getByRole('button', { name: 'Extend town-1' }).isDisabled()).resolves.toBe(true);
  await expect(card.getByRole('button', { name: 'Delete town-1' }).isDisabled()).resolves.toBe(true);
  await card.getByLabel('Cannot extend, service is currently installing...').hover();
  await expect(page.getByRole('tooltip').innerText()).resolves.toBe('Cannot extend, service is currently installing...');
  await card.getByLabel('Cannot delete, service is currently installing...').focus();
  await expect(page.getByRole('tooltip').innerText()).resolves.toBe('Cannot delete, service is currently installing...');

  // The same name, whatever its case, is taken.
  dialog = await newServiceDialog(page);
  await dialog.getByLabel('Service Name').fill('TOWN-1');
  await dialog.getByLabel('Service Name').blur();
  await expectText(page, 'A service with this name already exists');
  await page.keyboard.press('Escape');

  // Installed: the status turns Active without a reload.
  await workerFinishes('complete_service_installation', 'town-1');
  await card.getByText('Active').waitFor({ timeout: 15_000 });

  // The key: masked but its last 4 characters, shown on request, copied.
  await expect(card.getByText(`${'•'.repeat(8)}AAA=`).count()).resolves.toBe(1);
  await card.getByRole('button', { name: 'Show API Key' }).click();
  await card.getByText(GALA_KEY).waitFor();
  await card.getByRole('button', { name: 'Hide API Key' }).click();
  await card.getByRole('button', { name: 'Copy API Key' }).click();
  await expectToast(page, 'API key copied to clipboard');
  await expect(page.evaluate(() => navigator.clipboard.readText())).resolves.toBe(GALA_KEY);

  // Extend by 3 months: $30 of the $40 left; the renewal moves about 3 months on.
  await card.getByRole('button', { name: 'Extend town-1' }).click();
  let extend = page.getByRole('dialog', { name: 'Extend town-1' });
  await extend.getByLabel('Months').selectOption({ label: '3 months @ $10.00/month' });
  await expect(extend.getByText('Total:').innerText()).resolves.toBe('Total: $30.00');
  await extend.getByRole('button', { name: 'Extend Service' }).click();
  await expectToast(page, 'Service Extended', 'Service extended for 3 month(s)');
  await card.getByText(/Renews in 1(19|2\d) days/).waitFor();

  // Not enough for 6 more; and no product chosen.
  await card.getByRole('button', { name: 'Extend town-1' }).click();
  extend = page.getByRole('dialog', { name: 'Extend town-1' });
  await extend.getByLabel('Months').selectOption({ label: '6 months @ $10.00/month' });
  await extend.getByRole('button', { name: 'Extend Service' }).click();
  await expectToast(page, 'Insufficient Credits', 'You need $60.00 but only have $10.00');
  await extend.getByLabel('Product').selectOption({ label: 'Select a product' });
  await extend.getByRole('button', { name: 'Extend Service' }).click();
  // Under the field, which says it is invalid, and gone once a product is chosen.
  await extend.getByText('Please select a product to extend with').waitFor();
  await expect(extend.getByLabel('Product').getAttribute('aria-invalid')).resolves.toBe('true');
  await extend.getByLabel('Product').selectOption({ index: 1 });
  await extend.getByText('Please select a product to extend with').waitFor({ state: 'detached' });
  await page.keyboard.press('Escape');

  // Delete: the confirmation must be ticked, and closing resets it.
  await card.getByRole('button', { name: 'Delete town-1' }).click();
  let confirm = page.getByRole('dialog', { name: 'Delete town-1?' });
  const understood = confirm.getByLabel('I understand this action cannot be undone');
  await expect(confirm.getByRole('button', { name: 'Delete Service' }).isDisabled()).resolves.toBe(true);
  await understood.check();
  await expect(confirm.getByRole('button', { name: 'Delete Service' }).isEnabled()).resolves.toBe(true);
  await page.keyboard.press('Escape');
  await card.getByRole('button', { name: 'Delete town-1' }).click();
  confirm = page.getByRole('dialog', { name: 'Delete town-1?' });
  await expect(confirm.getByLabel('I understand this action cannot be undone').isChecked()).resolves.toBe(false);
  await confirm.getByLabel('I understand this action cannot be undone').check();
  await confirm.getByRole('button', { name: 'Delete Service' }).click();
  await expectToast(page, 'Service Deleted', 'The service has been moved to trash.');
  await card.getByText('Deleting').waitFor();
  await card.getByLabel('Service is currently being deleted...').first().hover();
  await expect(page.getByRole('tooltip').innerText()).resolves.toBe('Service is currently being deleted...');

  await workerFinishes('complete_service_deletion', 'town-1');
  await expectText(page, 'No services yet', 15_000);

  // Billing: the charges, and the deleted service waiting to be reused.
  await openSection(page, 'Billing');
  await expect.poll(() => page.getByLabel('Current balance').innerText()).toBe('$10.00');
  await expectText(page, 'Service creation for town-1 (Town Star)');
  await expectText(page, '-$30.00');
  const unused = page.getByRole('region', { name: 'Unused Purchased Services' });
  await unused.getByRole('cell', { name: 'town-1' }).waitFor();
  await unused.getByText('Town Star ($10.00)').waitFor();
  await unused.getByRole('link', { name: 'Go to Services' }).click();

  // A new service of the same plan reuses it: no charge.
  await page.getByRole('heading', { level: 1, name: 'Services' }).waitFor();
  dialog = await newServiceDialog(page);
  await dialog.getByLabel('Service Name').fill('town-2');
  await dialog.getByRole('radio', { name: /^Town Star \$10\.00/ }).check();
  await dialog.getByLabel('API Key', { exact: true }).fill(`${'B'.repeat(43)}=`);
  await dialog.getByText('it will be reused at no charge').waitFor();
  await dialog.getByRole('button', { name: 'Create Service' }).click();
  await expectToast(page, 'Service Reactivated');
  await page.getByRole('article', { name: 'town-2' }).getByText('Installing').waitFor();
  // A creation e-mail per creation, a deletion e-mail per deletion, to the user's own address.
  expect(notices.map((n) => [n.eventType, n.serviceData.name, n.userEmail])).toEqual([
    ['service_created', 'town-1', user.email],
    ['service_deleted', 'town-1', user.email],
    ['service_created', 'town-2', user.email],
  ]);
  await openSection(page, 'Dashboard');
  await expect.poll(() => page.getByRole('group', { name: 'Billing Status' }).innerText()).toContain('$10.00');
  await expect.poll(() => page.getByRole('group', { name: 'Total Services' }).innerText()).toContain('1');

  // The one failed request is the refused extension (400 Insufficient Credits), on purpose.
  expect(errors.filter((e) => !e.includes('status of 400'))).toEqual([]);
  await page.context().close();
}

describe('services journey', () => {
  it('creates, installs, copies, extends, deletes and reuses a Town Star service at 1280 px', () => journey(DESKTOP));
  it('does the same at 375 px', () => journey(MOBILE));

  it('creates a Master Node service with its own key rule, searches and switches layout', async () => {
    const user = await createTestUser(app.server, { credits: 10 });
    const { page, errors } = await app.newPage(DESKTOP);
    await signIn(page, app.url, user.email, user.password);
    await openSection(page, 'Services');
    const dialog = await newServiceDialog(page);
    await dialog.getByLabel('Service Name').fill('master-1');
    await dialog.getByRole('radio', { name: /^Master Node/ }).check();
    const key = dialog.getByLabel('Master Node License Key', { exact: true });
    await expect(key.getAttribute('placeholder')).resolves.toBe('Enter your Master Node License Key');
    await key.fill('MN-1234');
    await key.blur();
    // Named as its label names it.
    await expectText(page, 'License key must have the form ############-####-####-####-############');
    await key.fill('MN0123456789_1234_5678_ABCD_01234567EFGH');
    await expectText(page, 'The licence key contains only letters, digits and hyphens');
    await key.fill(LICENCE_KEY);
    await dialog.getByRole('button', { name: 'Create Service' }).click();
    await expectToast(page, 'Service Created', 'Your new service has been created successfully.');
    const card = page.getByRole('article', { name: 'master-1' });
    await card.getByText('Master Node ·').waitFor();
    await card.getByRole('button', { name: 'Copy Master Node License Key' }).waitFor();

    await page.getByRole('searchbox', { name: 'Search services' }).fill('MASTER');
    await card.waitFor();
    await page.getByRole('searchbox', { name: 'Search services' }).fill('nothing');
    await expectText(page, 'No matching services');
    await page.getByRole('searchbox', { name: 'Search services' }).fill('');
    await page.getByRole('button', { name: 'Grid view' }).click();
    await expect(page.getByRole('button', { name: 'Grid view' }).getAttribute('aria-pressed')).resolves.toBe('true');

    await page.getByRole('button', { name: 'What do these statuses mean?' }).click();
    const guide = page.getByRole('dialog', { name: 'Service statuses' });
    await guide.getByText(/up to 10 minutes/).waitFor();
    // What the node badge of an active service says (issue 16).
    for (const meaning of [
      'The node is running. We check it around the clock.',
      'The node stopped and is being started again, automatically.',
      'The node is not running and is not starting. We are on it, and e-mail you if it stays down.',
      'The node is stopped because the service is suspended or expired.',
      'We have not heard from the node in the last few minutes.',
    ]) {
      await guide.getByText(meaning).waitFor();
    }
    await page.keyboard.press('Escape');
    expect(errors).toEqual([]);
  });

  it('shows a failed installation with its cause in the owner’s words, retries it through the real RPC, and deletes one', async () => {
    const user = await createTestUser(app.server, { credits: 20 });
    for (const name of ['broken-1', 'broken-2']) {
      const { error } = await user.client.rpc('create_service_securely', { p_name: name, p_description: null, p_api_key: GALA_KEY, p_product_id: TOWN_STAR });
      if (error) throw error;
    }
    const reason = 'No such image: nodeharbor/townstar-node:1';
    await workerFails('broken-1', reason);
    await workerFails('broken-2', 'task: non-zero exit (1)');

    const { page, context, errors } = await app.newPage(DESKTOP);
    const listReads: string[] = [];
    page.on('request', (r) => {
      if (new URL(r.url()).pathname === '/rest/v1/services') listReads.push(r.url());
    });
    await signIn(page, app.url, user.email, user.password);
    await openSection(page, 'Services');
    const card = page.getByRole('article', { name: 'broken-1' });
    for (const layout of ['Grid view', 'List view']) {
      await page.getByRole('button', { name: layout }).click();
      await card.getByText('Installation failed', { exact: true }).waitFor();
      // The owner's words, never the engine's reason (issue 36, item 7).
      await expect(card.getByText(installFailureText('not_started')).count()).resolves.toBe(1);
      await expect(card.getByText(reason).count()).resolves.toBe(0);
      await card.getByRole('button', { name: 'Retry broken-1' }).waitFor();
      await expect(card.getByRole('button', { name: 'Delete broken-1' }).isEnabled()).resolves.toBe(true);
    }
    // Extend waits until the node has run: its paid period has not started.
    await expect(card.getByRole('button', { name: 'Extend broken-1' }).isDisabled()).resolves.toBe(true);
    await card.getByLabel('Cannot extend, installation failed').hover();
    await expect(page.getByRole('tooltip').innerText()).resolves.toBe('Cannot extend, installation failed');
    // Nothing is moving: the list does not poll (it polls every 3 s while something is). The
    // time is counted by a list that does poll: three of its reads span at least two of its 3 s.
    const metronome = await pollingList();
    const readsBefore = listReads.length;
    await metronome.reads(3);
    expect(listReads.length).toBe(readsBefore);
    await metronome.close();

    await page.getByRole('button', { name: 'What do these statuses mean?' }).click();
    const guide = page.getByRole('dialog', { name: 'Service statuses' });
    await guide.getByText('Installation failed', { exact: true }).waitFor();
    await guide
      .getByText(
        'Your node could not start; the reason is shown on the service. Retry the installation, or delete the service. The paid period starts when your node first runs, and a failed installation costs nothing: its charge comes back to your balance at once.',
      )
      .waitFor();
    await page.keyboard.press('Escape');

    // Retry: its $10 came back when it failed, so it asks before charging it again; then pending,
    // installing again, and the list polls again until the node runs.
    const retryRpc = '**/rest/v1/rpc/retry_service_installation';
    const release = await holdRequests(page, retryRpc);
    await card.getByRole('button', { name: 'Retry broken-1' }).click();
    const confirmRetry = page.getByRole('dialog', { name: 'Retry broken-1?' });
    await confirmRetry.getByRole('button', { name: 'Retry for $10.00' }).click();
    await confirmRetry.getByText('Retrying...').waitFor();
    release();
    await expectToast(page, 'Installation restarted', 'broken-1 is being set up again. This takes up to 10 minutes.');
    await page.unroute(retryRpc);
    await card.getByText('Installing').waitFor();
    await expect(card.getByText(installFailureText('not_started')).count()).resolves.toBe(0);
    await expect(card.getByRole('button', { name: 'Retry broken-1' }).count()).resolves.toBe(0);
    expect(await stateOf('broken-1')).toBe('installing');
    const events = await app.server.deps.db.query<{ event: string }>(
      `select e.event from public.service_events e join private.services s on s.id = e.service_id where s.name = 'broken-1' order by e.id`,
    );
    expect(events.rows.map((r) => r.event).slice(-2)).toEqual(['install_failed', 'retry_requested']);
    await workerFinishes('complete_service_installation', 'broken-1');
    await card.getByText('Active').waitFor({ timeout: 15_000 });

    // Retried meanwhile from elsewhere: the server's refusal is shown, and the list catches up.
    const other = page.getByRole('article', { name: 'broken-2' });
    const { data: broken2 } = await user.client.from('services').select('id').eq('name', 'broken-2').single();
    expect((await user.client.rpc('retry_service_installation', { p_service_id: broken2!.id, p_charge: 10 })).error).toBeNull();
    await other.getByRole('button', { name: 'Retry broken-2' }).click();
    await page.getByRole('dialog', { name: 'Retry broken-2?' }).getByRole('button', { name: 'Retry for $10.00' }).click();
    await expectToast(page, 'Only a service whose installation failed can be retried');
    await other.getByText('Installing').waitFor();
    // It fails again while the page polls, its key refused this time: shown without a reload, in words the owner can act on.
    await workerFails('broken-2', 'Gala refused this API key: Error: invalid api key', 'key_refused');
    await other.getByText(installFailureText('key_refused')).waitFor({ timeout: 15_000 });
    await expect(other.getByText(/invalid api key/).count()).resolves.toBe(0);

    // A lost request: nothing from the server to show.
    const retryPath = (url: URL) => url.pathname === '/rest/v1/rpc/retry_service_installation';
    await context.route(retryPath, (r) => r.abort());
    await other.getByRole('button', { name: 'Retry broken-2' }).click();
    await page.getByRole('dialog', { name: 'Retry broken-2?' }).getByRole('button', { name: 'Retry for $10.00' }).click();
    await expectToast(page, 'Failed to retry the installation');
    await context.unroute(retryPath);

    // Delete from failed: to trash. Its $10 already came back when it failed, so no paid slot waits in Billing.
    await other.getByRole('button', { name: 'Delete broken-2' }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete broken-2?' });
    await confirm.getByLabel('I understand this action cannot be undone').check();
    await confirm.getByRole('button', { name: 'Delete Service' }).click();
    await expectToast(page, 'Service Deleted', 'The service has been moved to trash.');
    await other.getByText('Deleting').waitFor();
    await workerFinishes('complete_service_deletion', 'broken-2');
    await expect.poll(() => other.count(), { timeout: 15_000 }).toBe(0);
    await openSection(page, 'Billing');
    await page.getByRole('region', { name: 'Unused Purchased Services' }).getByText('No unused purchased services.').waitFor();
    // $20, less two orders and two retries, plus the three failures given back.
    await expect.poll(() => page.getByLabel('Current balance').innerText()).toBe('$10.00');

    // On purpose: the refused retry (409) and the aborted one.
    expect(errors.filter((e) => !e.includes('status of 409') && !e.includes('net::ERR_FAILED'))).toEqual([]);
  });

  it('says so when services, plans or the creation fail', async () => {
    const user = await createTestUser(app.server, { credits: 20 });
    const { page, context } = await app.newPage(DESKTOP);
    await signIn(page, app.url, user.email, user.password);
    const isPath = (path: string) => (url: URL) => url.pathname === path;
    // A server failure (an aborted request would be retried by supabase-js for a long while).
    const services = isPath('/rest/v1/services');
    await context.route(services, serverError);
    await page.goto(`${app.url}/dashboard/services`);
    await expectText(page, 'Failed to load services', 20_000);
    await context.unroute(services);
    const products = isPath('/rest/v1/products');
    await context.route(products, serverError);
    await context.route(isPath('/rest/v1/rpc/create_service_securely'), serverError);
    await page.reload();
    let dialog = await newServiceDialog(page);
    await dialog.getByText('Failed to load service plans. Please try again later.').waitFor({ timeout: 20_000 });
    await page.keyboard.press('Escape');
    await context.unroute(products);

    await page.reload();
    dialog = await newServiceDialog(page);
    await dialog.getByLabel('Service Name').fill('town-x');
    await dialog.getByRole('radio', { name: /^Town Star \$10\.00/ }).check();
    await dialog.getByLabel('API Key', { exact: true }).fill(GALA_KEY);
    await dialog.getByRole('button', { name: 'Create Service' }).click();
    await expectToast(page, 'Error', 'Failed to create service');
  });

  it('says so when a creation is refused, compatible products, an extension or a deletion fail, and when nothing can extend', async () => {
    const user = await createTestUser(app.server, { credits: 40 });
    // A one-time product (nothing renews it, so nothing can extend it), and a service of it that
    // an operator gave a renewal date: the Extend dialog has no product to offer.
    const once = '00000000-0000-4000-8000-0000000000aa';
    await app.server.deps.db.query(
      `insert into public.products (id, name, price, is_active, renew_interval, base_product_code) values ($1, 'Once', 1, true, null, 'ONCE') on conflict (id) do nothing`,
      [once],
    );
    for (const [name, product] of [
      ['town-y', TOWN_STAR],
      ['once-1', once],
      ['once-2', once],
      ['lapsed', TOWN_STAR],
    ] as const) {
      const { error } = await user.client.rpc('create_service_securely', { p_name: name, p_description: null, p_api_key: GALA_KEY, p_product_id: product });
      if (error) throw error;
      await workerFinishes('complete_service_installation', name);
    }
    await app.server.deps.db.query(`update private.services set renews_at = now() + interval '30 days' where name = 'once-1'`);
    await app.server.deps.db.query(`update private.services set renews_at = now() - interval '2 days', state = 'expired' where name = 'lapsed'`);

    const { page, context } = await app.newPage(DESKTOP);
    await signIn(page, app.url, user.email, user.password);
    await openSection(page, 'Services');

    // Another tab takes the name while the form is open: the server's refusal is shown.
    const dialog = await newServiceDialog(page);
    await dialog.getByLabel('Service Name').fill('raced');
    await dialog.getByRole('radio', { name: /^Town Star \$10\.00/ }).check();
    await dialog.getByLabel('API Key', { exact: true }).fill(GALA_KEY);
    const other = await user.client.rpc('create_service_securely', { p_name: 'raced', p_description: null, p_api_key: GALA_KEY, p_product_id: TOWN_STAR });
    expect(other.error).toBeNull();
    await dialog.getByRole('button', { name: 'Create Service' }).click();
    await expectToast(page, 'Error', 'Failed to create service');
    await dialog.getByRole('alert').getByText('A service with this name already exists').waitFor();
    await page.keyboard.press('Escape');

    // Renewal badges: one-time (and nothing to extend), expired two days ago.
    await page.getByRole('article', { name: 'once-2' }).getByText('One-time service').waitFor();
    await expect(page.getByRole('button', { name: 'Extend once-2' }).count()).resolves.toBe(0);
    const lapsed = page.getByRole('article', { name: 'lapsed' });
    await lapsed.getByText('Expired 2 days ago').waitFor();
    await lapsed.getByText('Expired', { exact: true }).waitFor();

    await page.getByRole('button', { name: 'Extend once-1' }).click();
    await page.getByRole('dialog', { name: 'Extend once-1' }).getByText('No compatible products are available to extend this service right now.').waitFor();
    await page.keyboard.press('Escape');

    const isPath = (path: string) => (url: URL) => url.pathname === path;
    const products = isPath('/rest/v1/products');
    await context.route(products, serverError);
    await page.getByRole('button', { name: 'Extend town-y' }).click();
    await page.getByRole('dialog', { name: 'Extend town-y' }).getByText('Failed to load compatible products').waitFor({ timeout: 20_000 });
    await page.keyboard.press('Escape');
    await context.unroute(products);

    // Monthly products extend by 1 to 6 months, quarterly ones by 3 or 6.
    await page.getByRole('button', { name: 'Extend town-y' }).click();
    const extend = page.getByRole('dialog', { name: 'Extend town-y' });
    const monthLabels = () => extend.getByLabel('Months').locator('option').allInnerTexts();
    await expect(monthLabels()).resolves.toEqual(['1 month @ $10.00/month', ...[2, 3, 4, 5, 6].map((m) => `${m} months @ $10.00/month`)]);
    await extend.getByLabel('Product').selectOption({ label: 'Town Star (quarterly) ($30.00)' });
    await expect(monthLabels()).resolves.toEqual(['3 months @ $10.00/month', '6 months @ $10.00/month']);
    await extend.getByLabel('Months').selectOption('6');
    await expect(extend.getByText('Total:').innerText()).resolves.toBe('Total: $60.00');
    await page.keyboard.press('Escape');

    // Lost requests: no server message to show, so the generic ones.
    await context.route(isPath('/rest/v1/rpc/extend_service_expiration'), (r) => r.abort());
    await context.route(isPath('/rest/v1/rpc/manage_service_operation'), (r) => r.abort());
    await page.reload();
    await page.getByRole('button', { name: 'Extend town-y' }).click();
    await page.getByRole('dialog', { name: 'Extend town-y' }).getByRole('button', { name: 'Extend Service' }).click();
    await expectToast(page, 'Failed to extend service');
    await page.keyboard.press('Escape');
    await page.getByRole('button', { name: 'Delete town-y' }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete town-y?' });
    await confirm.getByLabel('I understand this action cannot be undone').check();
    await confirm.getByRole('button', { name: 'Delete Service' }).click();
    await expectToast(page, 'Failed to delete service');
  });
});
