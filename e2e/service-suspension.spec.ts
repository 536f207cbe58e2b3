import { afterAll, beforeAll, expect, it } from 'vitest';
import { createJobDeps } from '../src/server/jobs/app-worker';
import type { JobDeps } from '../src/server/jobs/task';
import { stopService } from '../src/server/jobs/tasks/stop-service';
import { installNode } from '../src/server/provisioning/install-node';
import { sweepNodes } from '../src/server/provisioning/node-monitor';
import { createService, createTestUser } from '../test/helpers/users';
import { signIn, startApp, type TestApp } from './helpers/app';

const DESKTOP = { width: 1366, height: 850 } as const;

let app: TestApp;
let deps: JobDeps;
beforeAll(async () => {
  // The test does the worker's steps itself, through the worker's own code; its monitor sweep sees
  // every node of the server, so the server is this test's own.
  app = await startApp({ RUN_WORKER: 'false' });
  deps = await createJobDeps(app.server.deps);
});
afterAll(() => app?.stop());

it("shows a suspended service with the day it is terminated, in the owner's language and time zone, and the guide says what it means", async () => {
  const user = await createTestUser(app.server, { credits: 10 });
  await app.server.deps.db.query(`update public.profiles set language = 'de', time_zone = 'Asia/Tokyo' where id = $1`, [user.id]);
  const id = await createService(user, 'lapsed-s');
  await installNode(deps, id);
  await sweepNodes(deps);
  // The $10 paid the first period; its renewal finds nothing and suspends it.
  await app.server.deps.db.query(`update private.services set renews_at = now() - interval '1 minute' where id = $1`, [id]);
  const { rows } = await app.server.deps.db.query<{ outcome: string }>('select private.renew_service($1, 14) as outcome', [id]);
  expect(rows[0]!.outcome).toBe('suspended');
  await stopService.run({ serviceId: id }, deps);
  const { rows: ends } = await app.server.deps.db.query<{ terminates_at: Date }>('select terminates_at from private.services where id = $1', [id]);
  const day = new Intl.DateTimeFormat('de', { dateStyle: 'medium', timeZone: 'Asia/Tokyo' }).format(ends[0]!.terminates_at);

  const { page, errors } = await app.newPage(DESKTOP);
  await signIn(page, app.url, user.email, user.password);
  // The overview's Next Payment is the one due now.
  await expect.poll(() => page.getByRole('group', { name: 'Next Payment' }).innerText()).toContain('Due now: lapsed-s is suspended until a top-up renews it');
  await page.goto(`${app.url}/dashboard/services`);
  const card = page.getByRole('article', { name: 'lapsed-s' });
  await card.getByText(`Suspended · terminates on ${day}`, { exact: true }).waitFor();
  // Paying for it is the way back: Extend is offered.
  await expect(card.getByRole('button', { name: 'Extend lapsed-s' }).isEnabled()).resolves.toBe(true);

  await page.getByRole('button', { name: 'What do these statuses mean?' }).click();
  const guide = page.getByRole('dialog', { name: 'Service statuses' });
  await guide.getByText('Suspended', { exact: true }).waitFor();
  await guide.getByText(/^The renewal found too little credit\. The node is stopped but kept: add credit and the service renews on its own/).waitFor();
  await guide.getByText('The node is stopped because the service is suspended or expired.').waitFor();
  for (const status of ['Installing', 'Installation failed', 'Active', 'Expired', 'Deleting']) await guide.getByText(status, { exact: true }).waitFor();
  await page.keyboard.press('Escape');

  await page.goto(`${app.url}/dashboard/services/${id}`);
  const header = page.getByRole('region', { name: 'lapsed-s' });
  await header.getByText(`Suspended · terminates on ${day}`, { exact: true }).waitFor();
  const history = page.getByRole('region', { name: 'Event history' }).getByRole('listitem');
  await expect
    .poll(async () => (await history.allInnerTexts()).slice(0, 2).map((l) => l.replace(/^.*\d{1,2}:\d{2}\s?(AM|PM)?\s*/, '')))
    .toEqual(['Stopped', `Suspended: the balance was too low to renew; terminates on ${day}`]);
  expect(errors).toEqual([]);
});
