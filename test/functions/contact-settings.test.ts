import { afterAll, beforeAll, expect, it } from 'vitest';
import { invokeFunction } from '../helpers/functions';
import { startTestServer, type TestServer } from '../helpers/server';
import { createTestUser } from '../helpers/users';

const servers: TestServer[] = [];
afterAll(() => Promise.all(servers.map((s) => s.stop())));
async function start(env: Record<string, string>) {
  const s = await startTestServer({ RATE_LIMITS_ENABLED: 'false', ...env });
  servers.push(s);
  return s;
}

let configured: TestServer;
beforeAll(async () => {
  configured = await start({
    CONTACT_TO: 'support@nodeharbor.test',
    SMTP_URL: 'smtps://mailer:s3cret-pass@smtp.nodeharbor.test:465',
    MAIL_FROM: 'NodeHarbor <hello@nodeharbor.test>',
  });
});

it('tells an admin which contact settings are set, with the SMTP host but never its credentials', async () => {
  const admin = await createTestUser(configured, { admin: true });
  const r = await invokeFunction(admin.client, 'contact-settings', {});
  expect(r).toEqual({
    status: 200,
    body: { contact_to: 'support@nodeharbor.test', mail_from: 'NodeHarbor <hello@nodeharbor.test>', smtp_host: 'smtp.nodeharbor.test:465' },
  });
  expect(JSON.stringify(r.body)).not.toContain('s3cret');
});

it('says what is not set', async () => {
  const bare = await start({});
  const admin = await createTestUser(bare, { admin: true });
  expect((await invokeFunction(admin.client, 'contact-settings', {})).body).toMatchObject({ contact_to: null, smtp_host: null });
});

it('refuses a user who is not an admin, and a visitor', async () => {
  const user = await createTestUser(configured);
  expect(await invokeFunction(user.client, 'contact-settings', {})).toEqual({ status: 403, body: { error: 'Only admins can read the contact settings' } });
  expect(await invokeFunction(configured.client(), 'contact-settings', {})).toEqual({ status: 401, body: { error: 'Authentication required' } });
});
