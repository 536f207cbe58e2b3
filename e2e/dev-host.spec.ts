import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestUser } from '../test/helpers/users';
import { DEV_HOST, signIn, startApp, type TestApp } from './helpers/app';
import { holdRequests } from './helpers/page-tools';

let app: TestApp;
beforeAll(async () => {
  // A server of its own, with no PUBLIC_URL: the dev-host page calls the API at the address the
  // server listens on, never at a Host header a request chose (issue 33, item 8).
  app = await startApp({ PUBLIC_URL: '' });
});
afterAll(() => app?.stop());

const blocked = 'Development Access Required';

it('blocks a visitor of a development host, naming the environment and the host', async () => {
  const { page } = await app.newPage();
  await page.goto(`${app.devUrl}/about`);
  await page.getByRole('heading', { name: blocked }).waitFor();
  await page.getByText('This is a development environment. You need special access to view this site.').waitFor();
  await page.getByText(DEV_HOST).waitFor();
  await page.getByText('If you believe you should have access, please contact an administrator.').waitFor();
});

it('leaves /login, /reset-password and /reset-password-confirm open there', async () => {
  const { page } = await app.newPage();
  for (const [path, heading] of [
    ['/login', 'Sign in'],
    ['/reset-password', 'Reset your password'],
  ]) {
    await page.goto(`${app.devUrl}${path}`);
    await page.getByRole('heading', { name: heading }).waitFor();
  }
  // A link with no token is refused: the page sends the visitor on to ask for a new one, still open.
  await page.goto(`${app.devUrl}/reset-password-confirm`);
  await page.getByRole('alert').filter({ hasText: 'Invalid reset link' }).waitFor();
  await page.getByRole('heading', { name: 'Reset your password' }).waitFor();
  expect(new URL(page.url()).pathname).toBe('/reset-password');
});

it('checks a signed-in user ("Checking development access..."), and shows the site to one with dev access', async () => {
  const user = await createTestUser(app.server, { devAccess: true });
  const { page } = await app.newPage();
  await signIn(page, app.devUrl, user.email, user.password);
  const release = await holdRequests(page, '**/rest/v1/rpc/has_dev_access');
  await page.goto(`${app.devUrl}/about`);
  await page.getByText('Checking development access...').waitFor();
  release();
  await page.getByRole('heading', { level: 1, name: 'About NodeHarbor' }).waitFor();
});

it('keeps the block for a signed-in user without dev access', async () => {
  const user = await createTestUser(app.server);
  const { page } = await app.newPage();
  await signIn(page, app.devUrl, user.email, user.password);
  await page.goto(`${app.devUrl}/`);
  await page.getByRole('heading', { name: blocked }).waitFor();
});

it('shows the site as usual on any other host', async () => {
  const { page } = await app.newPage();
  await page.goto(`${app.url}/about`);
  await page.getByRole('heading', { level: 1, name: 'About NodeHarbor' }).waitFor();
});
