import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addCredits } from '../src/server/domain/credits';
import { createJobDeps } from '../src/server/jobs/app-worker';
import type { JobDeps } from '../src/server/jobs/task';
import { startService } from '../src/server/jobs/tasks/start-service';
import { stopService } from '../src/server/jobs/tasks/stop-service';
import { installNode } from '../src/server/provisioning/install-node';
import { sweepNodes } from '../src/server/provisioning/node-monitor';
import { installFailureText } from '../src/shared/install-failure';
import { createTestUser, GALA_KEY, TOWN_STAR, type TestUser } from '../test/helpers/users';
import { serviceAction } from './dashboard-helpers';
import { expectToast } from './helpers/page-tools';
import { signIn, startApp, type TestApp } from './helpers/app';

const DESKTOP = { width: 1366, height: 850 } as const;
const PHONE = { width: 390, height: 844 } as const;

let app: TestApp;
let deps: JobDeps;
beforeAll(async () => {
  // The test does the worker's steps itself, each when it says, through the worker's own code; its
  // monitor sweeps see every node of the server, so the server is this test's own.
  app = await startApp({ RUN_WORKER: 'false' });
  deps = await createJobDeps(app.server.deps);
});
afterAll(() => app?.stop());

async function createService(user: TestUser, name: string): Promise<string> {
  const { data, error } = await user.client.rpc('create_service_securely', { p_name: name, p_description: null, p_api_key: GALA_KEY, p_product_id: TOWN_STAR });
  if (error) throw error;
  return (data as { id: string }).id;
}

/** The renewal the worker runs once the paid period is over (`ago`: how long over). */
async function renewalDue(id: string, ago: string): Promise<string> {
  await app.server.deps.db.query(`update private.services set renews_at = now() - $2::interval where id = $1`, [id, ago]);
  const { rows } = await app.server.deps.db.query<{ outcome: string }>('select private.renew_service($1) as outcome', [id]);
  return rows[0]!.outcome;
}

const history = (page: Page) => page.getByRole('region', { name: 'Event history' }).getByRole('listitem');
// Each line is its time, then the event in words.
const texts = (lines: string[]) => lines.map((l) => l.replace(/^.*\d{1,2}:\d{2}\s?(AM|PM)?\s*/, ''));

describe('service page: the card and its history', () => {
  it('shows plan, renewal and key, tells each event in words, and extends and deletes from the page', async () => {
    const user = await createTestUser(app.server, { credits: 20 });
    const id = await createService(user, 'town-p');
    await installNode(deps, id);
    await sweepNodes(deps);
    // The first period is paid by the $10 left; the second finds no money and the service is suspended.
    expect(await renewalDue(id, '1 minute')).toBe('renewed');
    expect(await renewalDue(id, '2 days')).toBe('suspended');
    await stopService.run({ serviceId: id }, deps);

    const { page, errors } = await app.newPage(DESKTOP);
    await signIn(page, app.url, user.email, user.password);
    await page.goto(`${app.url}/dashboard/services/${id}`);
    const header = page.getByRole('region', { name: 'town-p' });
    await header.getByText('Expired 2 days ago').waitFor();
    await header.getByText(/^Town Star · Created .+ · Paid until /).waitFor();
    await expect.poll(() => page.title()).toBe('town-p | NodeHarbor');

    await expect
      .poll(async () => texts(await history(page).allInnerTexts()))
      .toEqual([
        'Stopped',
        expect.stringMatching(/^Suspended: the balance was too low to renew; terminates on .+$/),
        expect.stringMatching(/^Renewed for 1 month until .+, \$10\.00 charged$/),
        'Node online',
        'Node installed',
        'Installation started',
      ]);

    // The key as on the card: masked but its last 4 characters, shown on request, copied.
    await expect(header.getByText(`${'•'.repeat(8)}AAA=`).count()).resolves.toBe(1);
    await header.getByRole('button', { name: 'Show API Key' }).click();
    await header.getByText(GALA_KEY).waitFor();
    await header.getByRole('button', { name: 'Hide API Key' }).click();
    await header.getByText(`${'•'.repeat(8)}AAA=`).waitFor();
    await header.getByRole('button', { name: 'Copy API Key' }).click();
    await expectToast(page, 'API key copied to clipboard');
    await expect(page.evaluate(() => navigator.clipboard.readText())).resolves.toBe(GALA_KEY);

    // Extended from the page with new funds (before the worker renews it on the credit): active again, the node started by the worker.
    await addCredits(app.server.deps.db, user.id, 10, 'Test top-up');
    await serviceAction(page, 'town-p', 'Extend town-p');
    const extend = page.getByRole('dialog', { name: 'Extend town-p' });
    await extend.getByLabel('Months').selectOption({ label: '1 month @ $10.00/month' });
    await extend.getByRole('button', { name: 'Extend Service' }).click();
    await expectToast(page, 'Service Extended', 'Service extended for 1 month(s)');
    await header.getByText(/^Renews in 3[01] days$/).waitFor();
    await header.getByText('Active', { exact: true }).waitFor();
    await expect.poll(async () => texts(await history(page).allInnerTexts()).slice(0, 2)).toEqual(['Start requested', 'Extended by 1 month']);
    await startService.run({ serviceId: id }, deps);
    await page.reload();
    await expect.poll(async () => texts(await history(page).allInnerTexts())[0]).toBe('Started');

    // Deleted from the page: back to the list, with the spec's toast, the service going.
    await serviceAction(page, 'town-p', 'Delete town-p');
    const confirm = page.getByRole('dialog', { name: 'Delete town-p?' });
    await confirm.getByLabel('I understand this action cannot be undone').check();
    await confirm.getByRole('button', { name: 'Delete Service' }).click();
    await expectToast(page, 'Service Deleted', 'The service has been moved to trash.');
    await page.waitForURL(`${app.url}/dashboard/services`);
    await page.getByRole('article', { name: 'town-p' }).getByText('Deleting').waitFor();
    expect(errors).toEqual([]);
  });

  it('on a phone: a failed installation in its owner’s words, retried from the page, a one-time service and one without a plan', async () => {
    const user = await createTestUser(app.server, { credits: 10 });
    const id = await createService(user, 'broken-p');
    // The worker's verdict on a node that cannot run, through the function it calls.
    await app.server.deps.db.query('select private.fail_service_installation($1, $2)', [id, 'No such image: nodeharbor/townstar-node:1']);

    const { page, errors } = await app.newPage(PHONE);
    await signIn(page, app.url, user.email, user.password);
    await page.goto(`${app.url}/dashboard/services/${id}`);
    const header = page.getByRole('region', { name: 'broken-p' });
    await header.getByText('Installation failed', { exact: true }).waitFor();
    // Its owner's words; the engine's reason is the admins' (issue 36, item 7).
    await header.getByText(installFailureText('not_started')).waitFor();
    await expect
      .poll(async () => texts(await history(page).allInnerTexts()))
      .toEqual([`Installation failed; $10.00 refunded to your balance. ${installFailureText('not_started')}`, 'Installation started']);
    expect(await page.getByText(/No such image/).count()).toBe(0);
    // The actions fit the phone's width.
    expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    // Its $10 came back when it failed: the retry asks before it charges the price again.
    await header.getByRole('button', { name: 'Retry broken-p' }).click();
    await page.getByRole('dialog', { name: 'Retry broken-p?' }).getByRole('button', { name: 'Retry for $10.00' }).click();
    await expectToast(page, 'Installation restarted', 'broken-p is being set up again. This takes up to 10 minutes.');
    await header.getByText('Installing').waitFor();
    await expect.poll(async () => texts(await history(page).allInnerTexts())[0]).toBe('Retry requested, $10.00 charged');

    // No renewal date: a one-time service, with nothing to extend.
    await app.server.deps.db.query('update private.services set renews_at = null where id = $1', [id]);
    await page.reload();
    await header.getByText('One-time service').waitFor();
    await header.getByRole('button', { name: 'More actions for broken-p' }).click();
    const menu = page.getByRole('menu');
    await menu.getByRole('menuitem', { name: 'Delete broken-p' }).waitFor();
    await expect(menu.getByRole('menuitem', { name: 'Extend broken-p' }).count()).resolves.toBe(0);
    await page.keyboard.press('Escape');

    // A service without a plan (an operator's), with its owner's description.
    await app.server.deps.db.query(`update private.services set product_id = null, description = 'The spare node' where id = $1`, [id]);
    await page.reload();
    await header.getByText(/^Custom Service · Created /).waitFor();
    await header.getByText('The spare node').waitFor();
    expect(errors).toEqual([]);
  });
});
