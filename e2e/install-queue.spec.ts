import { beforeAll, expect, it } from 'vitest';
import { createJobDeps } from '../src/server/jobs/app-worker';
import type { JobDeps } from '../src/server/jobs/task';
import { installNode } from '../src/server/provisioning/install-node';
import { INSTALL_WAITING_FOR_SLOT } from '../src/shared/node-health';
import { createService, createTestUser } from '../test/helpers/users';
import { until } from '../test/helpers/wait';
import { openSection } from './dashboard-helpers';
import { sharedApp, signIn, type TestApp } from './helpers/app';

// Issue 33, item 9: a service whose install waits in the queue for a free slot says so, beside
// Installing, until the worker starts its install.

let app: TestApp;
let deps: JobDeps;
beforeAll(async () => {
  // No worker: the install stays queued until the test runs it, as a worker with a free slot would.
  app = await sharedApp({ RUN_WORKER: 'false' });
  deps = await createJobDeps(app.server.deps);
});

it(`says "${INSTALL_WAITING_FOR_SLOT}" while a service's install is queued, and no longer once it has started`, async () => {
  const user = await createTestUser(app.server, { credits: 10 });
  const id = await createService(user, 'in-queue');
  const { page } = await app.newPage();
  await signIn(page, app.url, user.email, user.password);
  await openSection(page, 'Services');
  const card = page.getByRole('article', { name: 'in-queue' });
  await card.getByText('Installing').waitFor();
  await card.getByText(INSTALL_WAITING_FOR_SLOT, { exact: true }).waitFor();

  await card.getByRole('link', { name: 'in-queue' }).click();
  const details = page.getByRole('region', { name: 'in-queue' });
  await details.getByText(INSTALL_WAITING_FOR_SLOT, { exact: true }).waitFor();
  // Installing: Delete waits, in the page's More actions, disabled and saying why.
  await details.getByRole('button', { name: 'More actions for in-queue' }).click();
  const remove = page.getByRole('menu').getByRole('menuitem', { name: 'Delete in-queue' });
  await expect(remove.getAttribute('aria-disabled')).resolves.toBe('true');
  await expect(remove.evaluate((el) => document.getElementById(el.getAttribute('aria-describedby') ?? '')?.textContent)).resolves.toBe(
    'Cannot delete, service is currently installing...',
  );
  await page.keyboard.press('Escape');

  // A slot frees: the install starts, and the engine takes its time to create the node.
  let letGo: () => void = () => undefined;
  const engineBusy = new Promise<void>((r) => (letGo = r));
  const slow: JobDeps['provisioner'] = {
    ...deps.provisioner,
    async install(spec) {
      await engineBusy;
      return deps.provisioner.install(spec);
    },
  };
  const installing = installNode({ ...deps, provisioner: slow }, id);
  await until('the install to start', async () => {
    const { rows } = await app.server.deps.db.query('select 1 from private.services where id = $1 and install_started_at is not null', [id]);
    return rows.length > 0;
  });
  try {
    await page.reload();
    await details.getByText('Installing').waitFor();
    await details.getByText(INSTALL_WAITING_FOR_SLOT).waitFor({ state: 'hidden' });
    // The list, read again (it polls while a service installs), says the same.
    await openSection(page, 'Services');
    await card.getByText('Installing').waitFor();
    await card.getByText(INSTALL_WAITING_FOR_SLOT).waitFor({ state: 'hidden' });
  } finally {
    letGo();
    await installing;
  }
  await card.getByText('Active', { exact: true }).waitFor({ timeout: 20_000 });
});
