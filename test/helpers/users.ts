import { randomUUID } from 'node:crypto';
import type { SupabaseClient } from '@supabase/supabase-js';
import { createUser } from '../../src/server/auth/users';
import { addCredits } from '../../src/server/domain/credits';
import { grantRole } from '../../src/server/domain/roles';
import type { TestServer } from './server';

/** `token` is the access token of the signed-in session, for calls made without supabase-js. */
export type TestUser = { id: string; email: string; password: string; token: string; client: SupabaseClient };

/**
 * A user written to the real database, signed in through supabase-js like a browser would be.
 * The server must run with RATE_LIMITS_ENABLED=false when a test makes many users.
 */
export async function createTestUser(
  s: TestServer,
  opts: { email?: string; fullName?: string; credits?: number; admin?: boolean; devAccess?: boolean } = {},
): Promise<TestUser> {
  const email = opts.email ?? `user-${randomUUID().slice(0, 8)}@nodeharbor.test`;
  const password = 'correct-horse-battery';
  const user = await createUser(s.deps.db, { email, password, fullName: opts.fullName });
  if (opts.credits) await addCredits(s.deps.db, user.id, opts.credits, 'Test credit');
  if (opts.admin) await grantRole(s.deps.db, user.id, 'admin');
  if (opts.devAccess) await grantRole(s.deps.db, user.id, 'dev-access');
  const client = s.client();
  const { data, error } = await client.auth.signInWithPassword({ email, password });
  if (error) throw error;
  return { id: user.id, email, password, token: data.session.access_token, client };
}

/** Valid keys for the seeded plans. */
export const TOWN_STAR = '00000000-0000-4000-8000-000000000001';
export const TOWN_STAR_QUARTERLY = '00000000-0000-4000-8000-000000000002';
export const MASTER_NODE = '00000000-0000-4000-8000-000000000003';
export const GALA_KEY = `${'A'.repeat(43)}=`;
/** In Playa3ull's form: groups of 12, 4, 4, 4 and 12 (decision 035). */
export const LICENCE_KEY = 'MN0123456789-1234-5678-ABCD-01234567EFGH';

/** A Town Star service of `u`'s, created through the RPC a customer calls: it is installing. */
export async function createService(u: TestUser, name: string): Promise<string> {
  const { data, error } = await u.client.rpc('create_service_securely', { p_name: name, p_description: null, p_api_key: GALA_KEY, p_product_id: TOWN_STAR });
  if (error) throw error;
  return (data as { id: string }).id;
}
