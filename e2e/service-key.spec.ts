import { beforeAll, describe, expect, it } from 'vitest';
import { createJobDeps } from '../src/server/jobs/app-worker';
import type { JobDeps } from '../src/server/jobs/task';
import { installNode } from '../src/server/provisioning/install-node';
import { installFailureText } from '../src/shared/install-failure';
import { messages } from '../src/shared/validation';
import { forceServiceState } from '../test/helpers/service-state';
import { createTestUser, GALA_KEY, LICENCE_KEY, MASTER_NODE, TOWN_STAR, type TestUser } from '../test/helpers/users';
import { serviceAction } from './dashboard-helpers';
import { expectText, expectToast, holdRequests } from './helpers/page-tools';
import { DESKTOP, sharedApp, signIn, type TestApp } from './helpers/app';

// Change key and Rename on the service page (issue 17): the creation rules in the form, the
// server's refusals shown, the toast, and the change in the page's Event history.

const WIDE = { width: 1366, height: 850 } as const;
const PHONE = { width: 390, height: 844 } as const;

let app: TestApp;
let deps: JobDeps;
beforeAll(async () => {
  // No worker: the key job is left queued (its own tests run it); the page shows what the change records.
  app = await sharedApp({ RUN_WORKER: 'false' });
  deps = await createJobDeps(app.server.deps);
});

async function liveService(user: TestUser, name: string, key: string, product: string): Promise<string> {
  const { data, error } = await user.client.rpc('create_service_securely', { p_name: name, p_description: null, p_api_key: key, p_product_id: product });
  if (error) throw error;
  const id = (data as { id: string }).id;
  await installNode(deps, id);
  return id;
}

describe('service page: Change key and Rename', () => {
  it("changes a Master Node's key with its plan's rules, shows a refusal, and tells it in the events", async () => {
    const user = await createTestUser(app.server, { credits: 10 });
    const id = await liveService(user, 'mn-key', LICENCE_KEY, MASTER_NODE);
    const { page, context, errors } = await app.newPage(DESKTOP);
    await signIn(page, app.url, user.email, user.password);
    await page.goto(`${app.url}/dashboard/services/${id}`);

    await serviceAction(page, 'mn-key', 'Change key');
    const dialog = page.getByRole('dialog', { name: 'Change key' });
    await dialog.getByText('The node is restarted with the new key.').waitFor();
    await dialog.getByText(`Current key: ${'•'.repeat(8)}EFGH`).waitFor();
    const field = dialog.getByLabel('Master Node License Key');
    await expect(field.getAttribute('placeholder')).resolves.toBe('Enter your Master Node License Key');
    const save = dialog.getByRole('button', { name: 'Save key' });
    await field.fill('MN-1');
    await field.blur();
    await dialog.getByText(messages.apiKeyFormat('############-####-####-####-############', 'License key')).waitFor();
    await expect(save.isDisabled()).resolves.toBe(true);
    await field.fill('MN-1234-5678-ABCD-EFG$');
    await dialog.getByText('The licence key contains only letters, digits and hyphens').waitFor();
    await field.fill('');
    await dialog.getByText(messages.apiKeyRequired('License key')).waitFor();

    // A request that never reaches the server: the generic message.
    await context.route('**/rest/v1/rpc/manage_service_operation', (r) => r.abort());
    await field.fill('MN9999999999-8888-7777-9999-99999999WXYZ');
    await save.click();
    await expectToast(page, 'Failed to update service');
    await context.unroute('**/rest/v1/rpc/manage_service_operation');

    // The server's own refusal: the service went into deletion meanwhile.
    await forceServiceState(app.server.deps.db, 'deleting', 'id = $1', id);
    await save.click();
    await dialog.getByRole('alert').getByText('Service is currently being deleted...').waitFor();
    await expectToast(page, 'Service is currently being deleted...');
    await forceServiceState(app.server.deps.db, 'active', 'id = $1', id);

    await save.click();
    await expectToast(page, 'Service updated successfully.');
    await dialog.waitFor({ state: 'hidden' });
    const events = page.getByRole('region', { name: 'Event history' });
    await events.getByText('Key changed').waitFor();
    // The key itself is on no page but the owner's own key field: not in the events.
    await expect(events.innerText()).resolves.not.toContain('WXYZ');

    await serviceAction(page, 'mn-key', 'Change key');
    await page
      .getByRole('dialog', { name: 'Change key' })
      .getByText(`Current key: ${'•'.repeat(8)}WXYZ`)
      .waitFor();
    await page.keyboard.press('Escape');
    await page.goto(`${app.url}/dashboard/services`);
    await page
      .getByRole('article', { name: 'mn-key' })
      .getByText(`${'•'.repeat(8)}WXYZ`)
      .waitFor();
    expect(errors.filter((e) => !e.includes('manage_service_operation') && !e.includes('Failed to load resource'))).toEqual([]);
  });

  it('checks a Town Star key with the default rule', async () => {
    const user = await createTestUser(app.server, { credits: 20 });
    const id = await liveService(user, 'ts-key', GALA_KEY, TOWN_STAR);
    const { page } = await app.newPage(DESKTOP);
    await signIn(page, app.url, user.email, user.password);
    await page.goto(`${app.url}/dashboard/services/${id}`);
    // The plan's rules are read when the dialog opens: a slow answer shows it (the page's own read of the plan passes).
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    await page.route(
      (u) => u.pathname === '/rest/v1/products' && u.searchParams.get('select') === 'properties',
      async (route) => {
        await gate;
        await route.continue();
      },
    );
    await serviceAction(page, 'ts-key', 'Change key');
    const dialog = page.getByRole('dialog', { name: 'Change key' });
    await dialog.getByText("Loading the plan's key rules...").waitFor();
    release();
    const field = dialog.getByLabel('API Key');
    const cases: [string, string][] = [
      ['short=', messages.apiKeyDefaultLength()],
      [`${'B'.repeat(21)} ${'B'.repeat(21)}=`, messages.apiKeySpaces()],
      ['B'.repeat(44), messages.apiKeyDefaultEnding()],
      [`${'B'.repeat(42)}-=`, messages.apiKeyChars()],
    ];
    for (const [key, message] of cases) {
      await field.fill(key);
      await field.blur();
      await dialog.getByText(message, { exact: true }).waitFor();
    }
    await field.fill(`${'B'.repeat(39)}XYZ9=`);
    await dialog.getByRole('button', { name: 'Save key' }).click();
    await expectToast(page, 'Service updated successfully.');
    const events = page.getByRole('region', { name: 'Event history' });
    await events.getByText('Key changed').waitFor();
    // What the worker records next (its own tests run it), in words: written here as it would.
    for (const event of ['key_applied', 'key_update_failed']) await app.server.deps.db.query('select private.record_service_event($1, $2)', [id, event]);
    await page.reload();
    await events.getByText('New key handed to the node').waitFor();
    await events.getByText('The new key could not be handed to the node').waitFor();
  });

  it('renames: a taken name refused by the form and by the server, a valid one accepted', async () => {
    const user = await createTestUser(app.server, { credits: 30 });
    const id = await liveService(user, 'old-name', GALA_KEY, TOWN_STAR);
    await liveService(user, 'Known-Name', GALA_KEY, TOWN_STAR);
    const { page } = await app.newPage(DESKTOP);
    await signIn(page, app.url, user.email, user.password);
    await page.goto(`${app.url}/dashboard/services`);
    await page.getByRole('article', { name: 'old-name' }).waitFor();
    await page.goto(`${app.url}/dashboard/services/${id}`);
    await page.getByRole('heading', { name: 'old-name' }).waitFor();

    await serviceAction(page, 'old-name', 'Rename');
    const dialog = page.getByRole('dialog', { name: 'Rename' });
    await dialog.getByText('Give old-name a new name.').waitFor();
    await dialog.getByText(messages.serviceNameHint).waitFor();
    const field = dialog.getByLabel('Service Name');
    const save = dialog.getByRole('button', { name: 'Save name' });
    const refusals: [string, string][] = [
      ['', messages.serviceNameRequired],
      ['ab', messages.serviceNameShort],
      ['my node', messages.serviceNameSpaces],
      ['known-name', messages.serviceNameTaken],
    ];
    for (const [name, message] of refusals) {
      await field.fill(name);
      await field.blur();
      await dialog.getByText(message, { exact: true }).waitFor();
      await expect(save.isDisabled()).resolves.toBe(true);
    }
    // Taken since the page read the list: the server refuses it.
    await liveService(user, 'late-name', GALA_KEY, TOWN_STAR);
    await field.fill('late-name');
    await save.click();
    await dialog.getByRole('alert').getByText(messages.serviceNameTaken).waitFor();
    await expectToast(page, messages.serviceNameTaken);

    await field.fill('new-name');
    const releaseSave = await holdRequests(page, '**/rest/v1/rpc/manage_service_operation');
    await save.click();
    await dialog.getByRole('button', { name: 'Saving...' }).waitFor();
    releaseSave();
    await expectToast(page, 'Service updated successfully.');
    await page.getByRole('heading', { name: 'new-name' }).waitFor();
    await page.getByRole('region', { name: 'Event history' }).getByText('Renamed to new-name').waitFor();
    await expectText(page, 'new-name');
  });
});

describe('customers read their own words (issue 36, item 7)', () => {
  it.each([
    ['1366 px', WIDE],
    ['390 px', PHONE],
  ] as const)("at %s: a failed installation told in the owner's words, and the service's own key refused by Change key", async (_, viewport) => {
    const user = await createTestUser(app.server, { credits: 10 });
    const { data, error } = await user.client.rpc('create_service_securely', {
      p_name: 'words',
      p_description: null,
      p_api_key: GALA_KEY,
      p_product_id: TOWN_STAR,
    });
    if (error) throw error;
    const id = (data as { id: string }).id;
    // The worker's verdict, through the function it calls: Gala refused the key.
    await app.server.deps.db.query('select private.fail_service_installation($1, $2, $3)', [
      id,
      'Gala refused this API key: Error: invalid api key',
      'key_refused',
    ]);
    const words = installFailureText('key_refused');
    const { page, errors } = await app.newPage(viewport);
    await signIn(page, app.url, user.email, user.password);

    await page.goto(`${app.url}/dashboard/services`);
    await page.getByRole('article', { name: 'words' }).getByText(words).waitFor();
    expect(await page.getByText(/invalid api key/).count()).toBe(0);
    await page.goto(`${app.url}/dashboard/services/${id}`);
    await page.getByRole('region', { name: 'words' }).getByText(words).waitFor();
    await page.getByRole('region', { name: 'Event history' }).getByText(`Installation failed; $10.00 refunded to your balance. ${words}`).waitFor();
    expect(await page.getByText(/invalid api key/).count()).toBe(0);

    // The key it has: the form says so, and sends nothing.
    const sent: string[] = [];
    page.on('request', (r) => {
      if (new URL(r.url()).pathname === '/rest/v1/rpc/manage_service_operation') sent.push(r.method());
    });
    await serviceAction(page, 'words', 'Change key');
    const dialog = page.getByRole('dialog', { name: 'Change key' });
    const field = dialog.getByLabel('API Key');
    const save = dialog.getByRole('button', { name: 'Save key' });
    await field.fill(GALA_KEY);
    await field.blur();
    await dialog.getByText(messages.sameKey, { exact: true }).waitFor();
    await expect(save.isDisabled()).resolves.toBe(true);
    // Changed from elsewhere meanwhile to the key typed next: the server says the same, and nothing changes.
    const other = `${'F'.repeat(43)}=`;
    expect((await user.client.rpc('manage_service_operation', { p_service_id: id, p_operation: 'update', p_updates: { api_key: other } })).error).toBeNull();
    const keyEvents = async () =>
      (await app.server.deps.db.query(`select 1 from public.service_events where service_id = $1 and event = 'key_changed'`, [id])).rows.length;
    expect(await keyEvents()).toBe(1);
    await field.fill(other);
    await save.click();
    await dialog.getByRole('alert').getByText(messages.sameKey).waitFor();
    await expectToast(page, messages.sameKey);
    expect(sent).toEqual(['POST']);
    expect(await keyEvents()).toBe(1);
    expect(errors.filter((e) => !e.includes('Failed to load resource'))).toEqual([]);
  });
});
