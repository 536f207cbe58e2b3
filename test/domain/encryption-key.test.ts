import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { ROOT } from '../../src/server/paths';
import { withClaims, type DbRole } from '../../src/server/db/with-claims';
import { startTestServer, type TestServer } from '../helpers/server';
import { createTestUser, GALA_KEY, TOWN_STAR, type TestUser } from '../helpers/users';
import { expectLedgerBalanced } from '../helpers/ledger';

// The API key is encrypted at rest with a key the API roles can never read, directly or through
// a function; only the owner of a service sees its key, decrypted.
let s: TestServer;
let owner: TestUser;
let other: TestUser;
let encrypted: Buffer;
beforeAll(async () => {
  s = await startTestServer({ RATE_LIMITS_ENABLED: 'false' });
  owner = await createTestUser(s, { credits: 20 });
  other = await createTestUser(s);
  const { data } = await owner.client.rpc('create_service_securely', { p_name: 'secret', p_description: null, p_api_key: GALA_KEY, p_product_id: TOWN_STAR });
  const { rows } = await s.deps.db.query<{ raw: Buffer }>('select api_key_encrypted as raw from private.services where id = $1', [(data as { id: string }).id]);
  encrypted = rows[0]!.raw;
});
// Money moves here: every balance stays its ledger's sum.
afterEach(() => expectLedgerBalanced(s.deps.db));
afterAll(() => s.stop());

function as<T>(role: DbRole, sub: string | undefined, sql: string, params: unknown[] = []) {
  return withClaims(s.deps.db, { role, claims: sub ? { sub, role } : {} }, (tx) => tx.query<T>(sql, params));
}

it.each<DbRole>(['anon', 'authenticated', 'service_role'])('%s cannot read the encryption key', async (role) => {
  await expect(as(role, other.id, 'select private.encryption_key()')).rejects.toThrow(/permission denied/);
  await expect(as(role, other.id, "select private.encrypt_api_key('x')")).rejects.toThrow(/permission denied/);
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

// Issue 42, item 6: the function checked the id it was given, not whose ciphertext it was.
it("decrypts only a key stored on the caller's own service, whatever id is passed with it", async () => {
  const decrypt = async (caller: string, claims: Record<string, string>, userId: string, ciphertext: Buffer) => {
    const { rows } = await withClaims(s.deps.db, { role: 'authenticated', claims: { sub: caller, role: 'authenticated', ...claims } }, (tx) =>
      tx.query<{ k: string | null }>('select private.decrypt_api_key($1, $2) as k', [userId, ciphertext]),
    );
    return rows[0]!.k;
  };
  expect(await decrypt(other.id, {}, other.id, encrypted)).toBeNull();
  const admin = await createTestUser(s, { admin: true });
  expect(await decrypt(admin.id, {}, admin.id, encrypted)).toBeNull();
  expect(await decrypt(admin.id, {}, owner.id, encrypted)).toBeNull();

  // An owner with a verified second factor reads their key only at aal2.
  const enrolled = await createTestUser(s, { credits: 20 });
  const { data } = await enrolled.client.rpc('create_service_securely', {
    p_name: 'guarded',
    p_description: null,
    p_api_key: GALA_KEY,
    p_product_id: TOWN_STAR,
  });
  const theirs = await storedKey((data as { id: string }).id);
  await s.deps.db.query(
    `insert into auth.mfa_factors (id, user_id, factor_type, status, secret) values (gen_random_uuid(), $1, 'totp', 'verified', 'unused')`,
    [enrolled.id],
  );
  expect(await decrypt(enrolled.id, {}, enrolled.id, theirs)).toBeNull();
  expect(await decrypt(enrolled.id, { aal: 'aal2' }, enrolled.id, theirs)).toBe(GALA_KEY);

  // The owner's own path, the services view, reads on.
  const { data: shown } = await owner.client.from('services').select('api_key').eq('name', 'secret').single();
  expect(shown).toEqual({ api_key: GALA_KEY });
});

// The S2K type of a pgp_sym_encrypt ciphertext: byte 4, after the packet's tag and length, its version
// and its cipher. 3 is iterated (pgcrypto's default, slow to decrypt), 1 salted (0013).
const S2K_TYPE = 4;

async function storedKey(id: string): Promise<Buffer> {
  const { rows } = await s.deps.db.query<{ raw: Buffer }>('select api_key_encrypted as raw from private.services where id = $1', [id]);
  return rows[0]!.raw;
}

it('stores new and changed keys with a salted, not iterated, S2K', async () => {
  expect(encrypted[S2K_TYPE]).toBe(1);
  const { data } = await owner.client.rpc('create_service_securely', { p_name: 'salted', p_description: null, p_api_key: GALA_KEY, p_product_id: TOWN_STAR });
  const id = (data as { id: string }).id;
  const changed = `${'b'.repeat(43)}=`;
  const { error } = await owner.client.rpc('manage_service_operation', { p_service_id: id, p_operation: 'update', p_updates: { api_key: changed } });
  expect(error).toBeNull();
  expect((await storedKey(id))[S2K_TYPE]).toBe(1);
  const { data: shown } = await owner.client.from('services').select('api_key').eq('id', id).single();
  expect(shown).toEqual({ api_key: changed });
});

it('encrypts the keys stored before 0013 again, which still read the same', async () => {
  const { rows } = await s.deps.db.query<{ id: string }>(
    `insert into private.services (user_id, name, api_key_encrypted, product_id)
     values ($1, 'iterated', extensions.pgp_sym_encrypt($2, private.encryption_key()), $3) returning id`,
    [owner.id, GALA_KEY, TOWN_STAR],
  );
  const old = rows[0]!.id;
  expect((await storedKey(old))[S2K_TYPE]).toBe(3);
  const migration = readFileSync(join(ROOT, 'db/migrations/0013_encrypt_api_keys_without_key_stretching.sql'), 'utf8');
  await s.deps.db.transaction((tx) => tx.exec(migration.slice(migration.lastIndexOf('update private.services'))));
  expect((await storedKey(old))[S2K_TYPE]).toBe(1);
  // An already salted key is left as it was.
  expect(await storedKey((await s.deps.db.query<{ id: string }>(`select id from private.services where name = 'secret'`)).rows[0]!.id)).toEqual(encrypted);
  const { data } = await owner.client.from('services').select('api_key').eq('id', old).single();
  expect(data).toEqual({ api_key: GALA_KEY });
});
