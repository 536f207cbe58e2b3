import type { Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createJobDeps } from '../src/server/jobs/app-worker';
import type { JobDeps } from '../src/server/jobs/task';
import { simulateCrash, simulateOutage } from '../src/server/provisioning/drivers/simulated';
import { installNode } from '../src/server/provisioning/install-node';
import { sweepNodes } from '../src/server/provisioning/node-monitor';
import { forceServiceState } from '../test/helpers/service-state';
import { createTestUser, GALA_KEY, LICENCE_KEY, MASTER_NODE, TOWN_STAR, type TestUser } from '../test/helpers/users';
import { openSection } from './dashboard-helpers';
import { seriousViolations } from './helpers/axe';
import { expectText, expectToast, holdRequests, serverError } from './helpers/page-tools';
import { DESKTOP, signIn, startApp, type TestApp, type Viewport } from './helpers/app';

let app: TestApp;
let deps: JobDeps;
beforeAll(async () => {
  // The test plays the worker and the monitor, so that the fleet, on a server of its own, holds
  // exactly what it made.
  app = await startApp({ RUN_WORKER: 'false' });
  deps = await createJobDeps(app.server.deps);
});
afterAll(() => app?.stop());

async function order(user: TestUser, name: string, key = GALA_KEY, product = TOWN_STAR): Promise<string> {
  const { data, error } = await user.client.rpc('create_service_securely', { p_name: name, p_description: null, p_api_key: key, p_product_id: product });
  if (error) throw error;
  return (data as { id: string }).id;
}

async function live(user: TestUser, name: string, key?: string, product?: string): Promise<string> {
  const id = await order(user, name, key, product);
  await installNode(deps, id);
  return id;
}

/** The fleet's Admin Dashboard tab, as an admin opens it. */
async function openFleet(page: Page, admin: TestUser): Promise<Locator> {
  await signIn(page, app.url, admin.email, admin.password);
  await openSection(page, 'Admin Dashboard');
  await page.getByRole('tab', { name: 'Fleet' }).click();
  return page.getByRole('region', { name: 'Fleet' });
}

/** The service names of the table's rows, top to bottom (a row's first cell). */
const names = (fleet: Locator) =>
  fleet
    .getByRole('row')
    .filter({ has: fleet.page().getByRole('cell') })
    .evaluateAll((rows) => rows.map((r) => (r as HTMLTableRowElement).cells[0]!.innerText));

describe('admin fleet', () => {
  it("counts, filters and sorts every user's services by their node, retries a failed install, and reads another user's logs", async () => {
    const alice = await createTestUser(app.server, { email: `alice-${Date.now()}@nodeharbor.test`, credits: 100 });
    const bob = await createTestUser(app.server, { email: `bob-${Date.now()}@nodeharbor.test`, credits: 100 });
    const online = await live(alice, 'a-online');
    const stopped = await live(alice, 'a-stopped');
    const failed = await order(alice, 'a-failed');
    await app.server.deps.db.query('select private.fail_service_installation($1, $2)', [failed, 'The engine refused the node']);
    await order(alice, 'a-installing');
    const restarting = await live(bob, 'b-restart', LICENCE_KEY, MASTER_NODE);
    const offline = await live(bob, 'b-offline');
    await sweepNodes(deps);
    await simulateCrash(app.server.deps.db, restarting);
    await simulateOutage(app.server.deps.db, offline, 10);
    // Stopped as a suspension stops it: it brings nothing, and its server still costs.
    await deps.provisioner.stop(stopped);
    await forceServiceState(app.server.deps.db, 'suspended', 'id = $1', stopped, `terminates_at = now() + interval '14 days'`);
    await sweepNodes(deps);
    // Installed after the last sweep: the monitor has not seen it.
    await live(bob, 'b-unknown');

    const admin = await createTestUser(app.server, { admin: true });
    const { page, errors } = await app.newPage(DESKTOP);
    const fleet = await openFleet(page, admin);
    const counts = fleet.getByRole('group', { name: 'Services by state' });
    await expect
      .poll(async () => (await counts.getByRole('button').allInnerTexts()).map((t) => t.replace(/\s+/g, ' ')))
      .toEqual(['Online 1', 'Offline 1', 'Restarting 1', 'Stopped 1', 'Unknown 1', 'Installing 1', 'Installation failed 1', 'Deleting 0']);
    await expect.poll(() => fleet.getByRole('row').count()).toBe(8); // the header and 7 services

    await expect(fleet.getByRole('columnheader').allInnerTexts()).resolves.toEqual([
      'Service',
      'Owner',
      'Product',
      'State',
      'Host',
      'Last seen',
      'Restarts (24 h)',
      'Margin / month',
      'Created',
      'Actions',
    ]);
    const row = (name: string) => fleet.getByRole('row').filter({ has: page.getByRole('cell', { name, exact: true }) });
    // Each cell's text on one line: a badge and its reason, or two buttons, are blocks of their own.
    const cells = async (name: string) => (await row(name).getByRole('cell').allInnerTexts()).map((t) => t.replace(/\s+/g, ' ').trim());
    const created = new Intl.DateTimeFormat('en-US', { dateStyle: 'medium', timeZone: 'UTC' }).format(new Date());
    expect(await cells('a-failed')).toEqual([
      'a-failed',
      alice.email,
      'Town Star',
      'Installation failed The engine refused the node',
      '',
      'Never',
      '0',
      '—',
      created,
      // Its $10 went back to alice when it failed: only she can buy it again, so the fleet offers no Retry.
      'Refunded: only its owner can retry Logs',
    ]);
    expect(await cells('b-offline')).toEqual([
      'b-offline',
      bob.email,
      'Town Star',
      'Offline simulated outage: the host does not answer',
      expect.stringMatching(/^simulated-host-\d$/),
      'just now',
      '0',
      '$5.19',
      created,
      // An active service's power actions (e2e/power-actions.spec.ts), then its Logs.
      'Restart Stop Logs',
    ]);
    expect(await cells('b-restart')).toEqual(expect.arrayContaining(['Master Node', 'Restarting task: non-zero exit (137)', '1', '—']));
    expect(await cells('a-stopped')).toEqual(expect.arrayContaining(['Stopped', '-$4.81']));
    // The margin: Town Star's $10 a month less its server's $4.81; a loss in the destructive colour;
    // "—" says why there is none.
    await expect(row('a-stopped').getByText('-$4.81').getAttribute('class')).resolves.toContain('text-destructive');
    await expect(row('b-offline').getByText('$5.19').getAttribute('class')).resolves.toBeNull();
    await row('b-restart').getByTitle('No cost recorded for this product').waitFor();
    await row('a-failed').getByTitle('No node, so no cost').waitFor();
    expect(await cells('b-unknown')).toEqual(expect.arrayContaining(['Unknown', 'Never']));
    expect(await cells('a-installing')).toEqual(expect.arrayContaining(['Installing', 'Never']));
    expect(await seriousViolations(page)).toEqual([]);

    // A count filters; pressed again, it shows all.
    await counts.getByRole('button', { name: 'Offline 1' }).click();
    await expect.poll(() => names(fleet)).toEqual(['b-offline']);
    await expect(counts.getByRole('button', { name: 'Offline 1' }).getAttribute('aria-pressed')).resolves.toBe('true');
    await expect(fleet.getByRole('combobox', { name: 'State' }).inputValue()).resolves.toBe('offline');
    await counts.getByRole('button', { name: 'Offline 1' }).click();
    await expect.poll(() => fleet.getByRole('row').count()).toBe(8);
    // So does the select.
    await fleet.getByRole('combobox', { name: 'State' }).selectOption({ label: 'Installation failed' });
    await expect.poll(() => names(fleet)).toEqual(['a-failed']);
    await fleet.getByRole('combobox', { name: 'State' }).selectOption({ label: 'Deleting' });
    await fleet.getByText('No services found').waitFor();
    await fleet.getByRole('combobox', { name: 'State' }).selectOption({ label: 'All states' });

    // Sorting by a column, then the other way; restarts largest first.
    const header = (name: string) => fleet.getByRole('columnheader', { name });
    await header('Service').getByRole('button').click();
    await expect.poll(() => names(fleet)).toEqual(['a-failed', 'a-installing', 'a-online', 'a-stopped', 'b-offline', 'b-restart', 'b-unknown']);
    await expect(header('Service').getAttribute('aria-sort')).resolves.toBe('ascending');
    await header('Service').getByRole('button').click();
    await expect.poll(() => names(fleet)).toEqual(['b-unknown', 'b-restart', 'b-offline', 'a-stopped', 'a-online', 'a-installing', 'a-failed']);
    await expect(header('Service').getAttribute('aria-sort')).resolves.toBe('descending');
    await header('Restarts (24 h)').getByRole('button').click();
    await expect.poll(async () => (await names(fleet))[0]).toBe('b-restart');
    await expect(header('Service').getAttribute('aria-sort')).resolves.toBeNull();
    await header('Owner').getByRole('button').click();
    await expect.poll(async () => (await names(fleet)).map((n) => n[0])).toEqual(['a', 'a', 'a', 'a', 'b', 'b', 'b']);
    // By margin: largest first, then the other way; those without one last either way.
    const paying = ['a-installing', 'a-online', 'b-offline', 'b-unknown'];
    const byMargin = async () => {
      const n = await names(fleet);
      return [n.slice(0, 4).sort(), n.slice(4, 5), n.slice(5).sort()];
    };
    await header('Margin / month').getByRole('button').click();
    await expect(header('Margin / month').getAttribute('aria-sort')).resolves.toBe('descending');
    await expect.poll(byMargin).toEqual([paying, ['a-stopped'], ['a-failed', 'b-restart']]);
    await header('Margin / month').getByRole('button').click();
    await expect(header('Margin / month').getAttribute('aria-sort')).resolves.toBe('ascending');
    await expect.poll(async () => (await names(fleet))[0]).toBe('a-stopped');
    await expect.poll(async () => (await names(fleet)).slice(1, 5).sort()).toEqual(paying);
    await expect.poll(async () => (await names(fleet)).slice(5).sort()).toEqual(['a-failed', 'b-restart']);

    // Another user's node's logs: the key never shows, and the owner is told of the read.
    await row('a-online').getByRole('button', { name: 'Logs of a-online' }).click();
    const dialog = page.getByRole('dialog', { name: 'Logs' });
    await dialog.getByLabel('Log lines').getByText('config: key=••••').waitFor();
    await expect(dialog.innerText()).resolves.not.toContain(GALA_KEY);
    await page.keyboard.press('Escape');

    // Its owner retries it, confirming the price: the fleet follows, installing again, then, the worker's part done, online.
    await expect(row('a-failed').getByRole('button', { name: 'Retry a-failed' }).count()).resolves.toBe(0);
    expect((await alice.client.rpc('retry_service_installation', { p_service_id: failed, p_charge: 10 })).error).toBeNull();
    await expect.poll(() => cells('a-failed'), { timeout: 15_000 }).toEqual(expect.arrayContaining(['Installing', 'Logs']));
    await counts.getByRole('button', { name: 'Installation failed 0' }).waitFor();
    await installNode(deps, failed);
    await sweepNodes(deps);
    // Something is still installing (a-installing), so the fleet is read again every few seconds.
    await expect.poll(() => cells('a-failed'), { timeout: 15_000 }).toEqual(expect.arrayContaining(['Online', 'just now']));
    expect(errors).toEqual([]);

    const owner = await app.newPage(DESKTOP);
    await signIn(owner.page, app.url, alice.email, alice.password);
    await owner.page.goto(`${app.url}/dashboard/services/${online}`);
    await owner.page.getByRole('region', { name: 'Event history' }).getByText('Logs read by an administrator').waitFor();
  });

  it('pages through the fleet 100 at a time', async () => {
    const user = await createTestUser(app.server);
    // 101 services on their way to trash, written at once: a state no other test here leaves.
    await app.server.deps.db.query(
      `insert into private.services (user_id, name, api_key_encrypted, product_id, state)
       select $1, 'bulk-' || g, private.encrypt_api_key($2), $3, 'deleting' from generate_series(1, 101) g`,
      [user.id, GALA_KEY, TOWN_STAR],
    );
    const admin = await createTestUser(app.server, { admin: true });
    const { page } = await app.newPage(DESKTOP);
    const fleet = await openFleet(page, admin);
    await fleet.getByRole('button', { name: 'Deleting 101' }).click();
    await fleet.getByText('Page 1 of 2').waitFor();
    await expect.poll(() => fleet.getByRole('row').count()).toBe(101); // the header and 100 services
    await fleet.getByRole('button', { name: 'Next' }).click();
    await fleet.getByText('Page 2 of 2').waitFor();
    await expect.poll(() => fleet.getByRole('row').count()).toBe(2);
    await expect(fleet.getByRole('button', { name: 'Next' }).isDisabled()).resolves.toBe(true);
    await fleet.getByRole('button', { name: 'Previous' }).click();
    await fleet.getByText('Page 1 of 2').waitFor();
  });

  it("shows its loading and failures, and is the server's to refuse a non-admin", async () => {
    const admin = await createTestUser(app.server, { admin: true });
    const { page } = await app.newPage(DESKTOP);
    const release = await holdRequests(page, '**/rest/v1/rpc/admin_fleet');
    const fleet = await openFleet(page, admin);
    await fleet.getByText('Loading the fleet...').waitFor();
    release();
    await fleet.getByRole('table').waitFor();

    // Routes run newest first: these answer before the held one, which now lets requests through.
    await page.route((u) => u.pathname === '/rest/v1/rpc/admin_fleet' || u.pathname === '/rest/v1/rpc/admin_fleet_counts', serverError);
    await page.reload();
    await page.getByRole('tab', { name: 'Fleet' }).click();
    await expectText(page, 'Failed to load the fleet.', 20_000);
    await expectText(page, 'Failed to load the counts.', 20_000);

    // The admin page turns a non-admin away (admin.spec.ts); the fleet's data is refused to them too.
    const user = await createTestUser(app.server);
    for (const fn of ['admin_fleet', 'admin_fleet_counts'] as const) {
      const { error } = await user.client.rpc(fn);
      expect(error?.code, fn).toBe('42501');
    }
    const other = await app.newPage(DESKTOP);
    await signIn(other.page, app.url, user.email, user.password);
    await other.page.goto(`${app.url}/admin`);
    await expectToast(other.page, 'Access Denied', 'You do not have admin privileges.');
    await other.page.waitForURL(`${app.url}/`);
    await expect(other.page.getByRole('tab', { name: 'Fleet' }).count()).resolves.toBe(0);
  });
});

/** The distinct lines an element's text is laid out on: 1 when it is kept whole. */
const lines = (el: Locator) =>
  el.evaluate((node) => {
    const range = document.createRange();
    range.selectNodeContents(node);
    return new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top))).size;
  });

/** The table's box scrolls sideways within its card, and the page does not. */
async function expectScrollsInCard(page: Page, card: Locator, box: string) {
  const scroller = card.getByRole('group', { name: `${box}, scrolls sideways` });
  await expect(scroller.evaluate((el) => el.scrollWidth > el.clientWidth)).resolves.toBe(true);
  const c = (await card.boundingBox())!;
  const s = (await scroller.boundingBox())!;
  expect(s.x).toBeGreaterThanOrEqual(c.x);
  expect(s.x + s.width).toBeLessThanOrEqual(c.x + c.width);
  expect(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
}

// Issue 36, item 7: the fleet and the user list keep names whole, filter on the server (both page
// there), and scroll inside their cards on a phone; at a laptop's and a phone's width, in both themes.
describe('the fleet and the user list, filtered, at a laptop and a phone', () => {
  const LAPTOP: Viewport = { width: 1366, height: 850 };
  const PHONE: Viewport = { width: 390, height: 844 };
  let ann: TestUser;
  let bo: TestUser;
  let boHost: string;
  beforeAll(async () => {
    const tag = Date.now();
    ann = await createTestUser(app.server, {
      email: `a-very-long-owner-address-${tag}@nodeharbor-example.test`,
      fullName: 'Bartholomew Featherstonehaugh-Smythe',
      credits: 100,
    });
    bo = await createTestUser(app.server, { email: `bo-${tag}@nodeharbor.test`, credits: 100 });
    await live(ann, 'filter-town');
    await live(ann, 'filter-master', LICENCE_KEY, MASTER_NODE);
    const other = await live(bo, 'filter-other');
    await sweepNodes(deps);
    const { rows } = await app.server.deps.db.query<{ host: string }>('select host from private.node_status where service_id = $1', [other]);
    boHost = rows[0]!.host;
  });

  for (const [viewport, theme] of [
    [LAPTOP, 'light'],
    [LAPTOP, 'dark'],
    [PHONE, 'light'],
    [PHONE, 'dark'],
  ] as const) {
    it(`filters each by what an admin knows of a customer, names whole, at ${viewport.width} px in the ${theme} theme`, async () => {
      const admin = await createTestUser(app.server, { admin: true });
      const { error } = await admin.client
        .from('profiles')
        .update({ darkmode_enabled: theme === 'dark' })
        .eq('id', admin.id);
      if (error) throw error;
      const { page, errors } = await app.newPage(viewport);
      await signIn(page, app.url, admin.email, admin.password);
      await openSection(page, 'Admin Dashboard');
      await expect.poll(() => page.evaluate(() => document.documentElement.classList.contains('dark'))).toBe(theme === 'dark');
      const accessible = async (where: string) => {
        const found = await seriousViolations(page, { experimental: true });
        expect(found, `${theme} ${where} at ${viewport.width} px:\n${found.join('\n')}`).toEqual([]);
      };

      // Users: by part of a full name (the e-mail search as before, admin.spec.ts).
      const users = page.getByRole('region', { name: 'Users' });
      await users.getByRole('searchbox', { name: 'Search users by email or name' }).fill('featherstonehaugh');
      await users.getByRole('button', { name: 'Search' }).click();
      await expect.poll(() => users.getByRole('row').count()).toBe(2); // the header and Ann
      const annRow = users.getByRole('row').filter({ hasText: ann.email });
      expect(await lines(annRow.getByRole('link', { name: ann.email }))).toBe(1);
      expect(await lines(annRow.getByRole('cell', { name: 'Bartholomew Featherstonehaugh-Smythe' }))).toBe(1);
      if (viewport === PHONE) await expectScrollsInCard(page, users, 'Users table');
      await accessible('the user list, searched by name');

      // The fleet: by an owner, a service's name, a product and a host, each filtered by the server.
      await page.getByRole('tab', { name: 'Fleet' }).click();
      const fleet = page.getByRole('region', { name: 'Fleet' });
      await fleet.getByRole('table').waitFor();
      const search = async (text: string) => {
        await fleet.getByRole('searchbox', { name: 'Search the fleet by owner, service, product or host' }).fill(text);
        await fleet.getByRole('button', { name: 'Search', exact: true }).click();
      };
      const sorted = async () => (await names(fleet)).sort();
      await search(ann.email.toUpperCase());
      await expect.poll(sorted).toEqual(['filter-master', 'filter-town']);
      await search('filter-oth');
      await expect.poll(sorted).toEqual(['filter-other']);
      await search('master node');
      await expect.poll(sorted).toEqual(expect.arrayContaining(['filter-master']));
      expect(await sorted()).not.toContain('filter-town');
      await search(boHost);
      const { rows: onHost } = await app.server.deps.db.query<{ name: string }>(
        `select s.name from private.services s join private.node_status n on n.service_id = s.id where n.host = $1 and s.state <> 'deleted' order by s.name`,
        [boHost],
      );
      await expect.poll(sorted).toEqual(onHost.map((r) => r.name));
      await search('no such customer');
      await fleet.getByText('No services found').waitFor();

      // Names whole: the service, its owner's address, its product and its host each on one line.
      await search(ann.email);
      await expect.poll(sorted).toEqual(['filter-master', 'filter-town']);
      const master = fleet.getByRole('row').filter({ has: page.getByRole('cell', { name: 'filter-master', exact: true }) });
      for (const cell of [
        master.getByRole('cell', { name: 'filter-master', exact: true }),
        master.getByRole('link', { name: ann.email }),
        master.getByRole('cell', { name: 'Master Node', exact: true }),
        master.getByRole('cell', { name: /^simulated-host-\d$/ }),
      ])
        expect(await lines(cell)).toBe(1);
      if (viewport === PHONE) await expectScrollsInCard(page, fleet, 'Fleet table');
      await accessible('the fleet, searched by owner');
      expect(errors).toEqual([]);
    });
  }
});
