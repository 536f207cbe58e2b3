import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createJobDeps } from '../src/server/jobs/app-worker';
import type { JobDeps } from '../src/server/jobs/task';
import { installNode } from '../src/server/provisioning/install-node';
import { sweepNodes } from '../src/server/provisioning/node-monitor';
import { NO_USAGE_YET } from '../src/shared/node-usage';
import { createTestUser, GALA_KEY, TOWN_STAR, type TestUser } from '../test/helpers/users';
import { expectAccessibleIn } from './helpers/axe';
import { signIn, startApp, type TestApp, type Viewport } from './helpers/app';

// What a node uses on its service page (issue 36, item 2): nothing yet before the monitor has
// sampled it, then CPU, memory and network over the last 24 hours and 30 days, at a laptop's and
// a phone's width, in both themes, with nothing serious for axe.

const LAPTOP: Viewport = { width: 1366, height: 850 };
const PHONE: Viewport = { width: 390, height: 844 };
const THEMES = ['light', 'dark'] as const;

let app: TestApp;
let deps: JobDeps;
beforeAll(async () => {
  // No worker: the test sweeps when it says; a sweep samples every node of the server, so the server is this file's own.
  app = await startApp({ RUN_WORKER: 'false' });
  deps = await createJobDeps(app.server.deps);
});
afterAll(() => app?.stop());

async function ownerWithNode(theme: (typeof THEMES)[number], name: string): Promise<{ user: TestUser; id: string }> {
  const user = await createTestUser(app.server, { credits: 50 });
  const dark = await user.client
    .from('profiles')
    .update({ darkmode_enabled: theme === 'dark' })
    .eq('id', user.id);
  if (dark.error) throw dark.error;
  const { data, error } = await user.client.rpc('create_service_securely', { p_name: name, p_description: null, p_api_key: GALA_KEY, p_product_id: TOWN_STAR });
  if (error) throw error;
  const id = (data as { id: string }).id;
  await installNode(deps, id);
  return { user, id };
}

describe('usage on the service page', () => {
  for (const viewport of [LAPTOP, PHONE]) {
    for (const theme of THEMES) {
      it(`says there is nothing yet, then draws CPU, memory and network for 24 hours and 30 days, at ${viewport.width} px in the ${theme} theme`, async () => {
        const name = `use-${viewport.width}-${theme}`.slice(0, 16);
        const { user, id } = await ownerWithNode(theme, name);
        const { page, errors } = await app.newPage(viewport);
        await signIn(page, app.url, user.email, user.password);
        await page.goto(`${app.url}/dashboard/services/${id}`);
        const usage = page.getByRole('region', { name: 'Usage' });
        await usage.getByText(NO_USAGE_YET).waitFor();

        // Two sweeps: the second's network counters give a rate.
        await sweepNodes(deps);
        await app.server.deps.db.query(`update private.node_usage_counters set sampled_at = sampled_at - interval '30 seconds' where service_id = $1`, [id]);
        await sweepNodes(deps);
        await page.reload();
        await usage.getByRole('img', { name: /^CPU: \d+(\.\d)?% now, peak / }).waitFor();
        await usage.getByRole('img', { name: /^Memory: [\d.]+ MiB of 1\.0 GiB now, peak / }).waitFor();
        await usage.getByRole('img', { name: /^Network: in [\d.]+ [KM]?B\/s, out [\d.]+ [KM]?B\/s now$/ }).waitFor();
        await expectAccessibleIn(page, theme, 'the usage of the last 24 hours');
        // Nothing of the section reaches past the page's width on a phone.
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
        expect(overflow).toBeLessThanOrEqual(0);

        await usage.getByRole('tab', { name: 'Last 30 days' }).click();
        await usage.getByText(/one-hour points/).waitFor();
        await usage.getByRole('img', { name: /^CPU: / }).waitFor();
        await expectAccessibleIn(page, theme, 'the usage of the last 30 days');
        expect(errors).toEqual([]);
      });
    }
  }

  it("shows another user's service as not found, and its usage to no one else", async () => {
    const { id } = await ownerWithNode('light', 'use-private');
    await sweepNodes(deps);
    const stranger = await createTestUser(app.server);
    const { data, error } = await stranger.client.rpc('service_usage', { p_service_id: id, p_range: '24h' });
    expect(data).toBeNull();
    expect(error?.message).toBe('Service not found');
  });
});
