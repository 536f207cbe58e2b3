import { afterAll, beforeAll, expect, it } from 'vitest';
import { withClaims, type DbRole } from '../../src/server/db/with-claims';
import { startTestServer, type TestServer } from '../helpers/server';
import { createTestUser, GALA_KEY, TOWN_STAR, type TestUser } from '../helpers/users';

// The API key is encrypted at rest with a key the API roles can never read, directly or through
// a function; only the owner of a service sees its key, decrypted.
let s: TestServer;
let owner: TestUser;
let other: TestUser;
let encrypted: Buffer;
beforeAll(async () => {
  s = await startTestServer({ RATE_LIMITS_ENABLED: 'false' });
  owner = await createTestUser(s, { credits: 10 });
  other = await createTestUser(s);
  const { data } = await owner.client.rpc('create_service_securely', { p_name: 'secret', p_description: null, p_api_key: GALA_KEY, p_product_id: TOWN_STAR });
  const { rows } = await s.deps.db.query<{ raw: Buffer }>('select api_key_encrypted as raw from private.services where id = $1', [(data as { id: string }).id]);
  encrypted = rows[0]!.raw;
});
afterAll(() => s.stop());

function as<T>(role: DbRole, sub: string | undefined, sql: string, params: unknown[] = []) {
  return withClaims(s.deps.db, { role, claims: sub ? { sub, role } : {} }, (tx) => tx.query<T>(sql, params));
}

it.each<DbRole>(['anon', 'authenticated', 'service_role'])('%s cannot read the encryption key', async (role) => {
  await expect(as(role, other.id, 'select private.encryption_key()')).rejects.toThrow(/permission denied/);
  await expect(as(role, other.id, 'select value from nodeharbor.settings')).rejects.toThrow(/permission denied/);
  await expect(as(role, other.id, 'select api_key_encrypted from private.services')).rejects.toThrow(/permission denied/);
});

it("decrypts only for the owner: another user's ciphertext gives nothing", async () => {
  const mine = await as<{ k: string | null }>('authenticated', owner.id, 'select private.decrypt_api_key($1, $2) as k', [owner.id, encrypted]);
  expect(mine.rows[0]!.k).toBe(GALA_KEY);
  const stolen = await as<{ k: string | null }>('authenticated', other.id, 'select private.decrypt_api_key($1, $2) as k', [owner.id, encrypted]);
  expect(stolen.rows[0]!.k).toBeNull();
  await expect(as('anon', undefined, 'select private.decrypt_api_key($1, $2)', [owner.id, encrypted])).rejects.toThrow(/permission denied/);
});
