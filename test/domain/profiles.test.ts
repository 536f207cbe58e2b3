import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server';
import { createTestUser } from '../helpers/users';

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer({ RATE_LIMITS_ENABLED: 'false', REGISTRATION_ENABLED: 'true' });
});
afterAll(() => s.stop());

it('creates a profile and a zero balance with the user, full_name from the sign-up metadata', async () => {
  const c = s.client();
  const { data, error } = await c.auth.signUp({
    email: 'new-user@nodeharbor.test',
    password: 'long-enough-1',
    options: { data: { full_name: 'Ada Lovelace' } },
  });
  expect(error).toBeNull();
  const id = data.user!.id;
  const { data: profile } = await c.from('profiles').select('id, full_name, email, darkmode_enabled').eq('id', id).single();
  expect(profile).toEqual({ id, full_name: 'Ada Lovelace', email: 'new-user@nodeharbor.test', darkmode_enabled: false });
  const { data: credits } = await c.from('user_credits').select('balance').eq('user_id', id).single();
  expect(credits).toEqual({ balance: 0 });
});

it('lets a user edit their profile but never its e-mail', async () => {
  const u = await createTestUser(s, { fullName: 'Before' });
  const ok = await u.client
    .from('profiles')
    .update({ full_name: 'After', company: 'Harbor Ltd', company_vat: 'GB123', darkmode_enabled: true, updated_at: new Date().toISOString() })
    .eq('id', u.id)
    .select('full_name, company, company_vat, darkmode_enabled')
    .single();
  expect(ok.data).toEqual({ full_name: 'After', company: 'Harbor Ltd', company_vat: 'GB123', darkmode_enabled: true });
  const email = await u.client.from('profiles').update({ email: 'stolen@x.test' }).eq('id', u.id);
  expect(email.status).toBe(403);
  expect(email.error?.code).toBe('42501');
  const { data } = await u.client.from('profiles').select('email').eq('id', u.id).single();
  expect(data).toEqual({ email: u.email });
});
