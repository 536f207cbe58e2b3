import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { decryptSecret } from '../../src/server/auth/mfa-secrets';
import { bootstrap } from '../../src/server/bootstrap';
import { keysReencrypt } from '../../src/server/cli/keys-reencrypt';
import type { Queryable } from '../../src/server/db/database';
import { loadConfig } from '../../src/server/env';
import { dumpTables } from '../helpers/dump';
import { startTestServer, type TestServer } from '../helpers/server';
import { createTestUser, GALA_KEY, TOWN_STAR, type TestUser } from '../helpers/users';

// The attacker holds a copy of the database (a dump, a backup, the data folder) and wants the
// customers' API keys and TOTP secrets. The key that encrypts them must not be in that copy.
const KEY_A = 'attack-test-original-key-AAAAAAAAAAAAAAAAAAAAAA';
const KEY_B = 'attack-test-rotated-key-BBBBBBBBBBBBBBBBBBBBBBBB';
const WRONG = 'attack-test-wrong-key-CCCCCCCCCCCCCCCCCCCCCCCCCC';

let s: TestServer;
let owner: TestUser;
let factor: { id: string; secret: string };
const logLines: string[] = [];
beforeAll(async () => {
  s = await startTestServer({ ENCRYPTION_KEY: KEY_A, RATE_LIMITS_ENABLED: 'false' }, { logLines });
  owner = await createTestUser(s, { credits: 20 });
  const { error } = await owner.client.rpc('create_service_securely', { p_name: 'node', p_description: null, p_api_key: GALA_KEY, p_product_id: TOWN_STAR });
  expect(error).toBeNull();
  const { data, error: enrolError } = await owner.client.auth.mfa.enroll({ factorType: 'totp' });
  if (enrolError) throw enrolError;
  factor = { id: data.id, secret: data.totp.secret };
  // An error path too, in case one printed the statement's parameters.
  await owner.client.rpc('manage_service_operation', { p_service_id: TOWN_STAR, p_operation: 'update', p_updates: { api_key: 'x' } });
});
afterAll(() => s.stop());

/** The database's own full copy: PGlite's data folder (WAL included), or pg_dump on PostgreSQL. */
async function dumpDatabase(): Promise<Buffer> {
  if (s.rawDb.dump) return Buffer.from(await (await s.rawDb.dump()).arrayBuffer());
  const { stdout } = await promisify(execFile)('pg_dump', ['--no-owner', s.databaseUrl!], { maxBuffer: 64 * 1024 * 1024, encoding: 'buffer' });
  return stdout;
}

function startWith(env: Record<string, string>) {
  const config = loadConfig({
    NODE_ENV: 'test',
    DATA_DIR: mkdtempSync(join(tmpdir(), 'nh-keys-')),
    JWT_SECRET: 'test-secret-that-is-long-enough-for-hs256-0123456789',
    LOG_LEVEL: 'silent',
    ...env,
  });
  // A refused start closes its database; this one is shared by the whole file.
  return bootstrap(config, { db: { ...s.rawDb, close: async () => {} } });
}

const apiKeys = async (db: Queryable) =>
  (await db.query<{ k: string }>(`select private.service_json(id)->>'api_key' as k from private.services order by created_at`)).rows.map((r) => r.k);
const storedSecret = async () => (await s.rawDb.query<{ secret: string }>('select secret from auth.mfa_factors where id = $1', [factor.id])).rows[0]!.secret;

it('a dump of every table holds neither the key nor anything that decrypts the API keys', async () => {
  const dump = await dumpTables(s.rawDb);
  expect(dump).toContain(owner.email);
  expect(dump).not.toContain(KEY_A);
  // Every value the server keeps for itself, tried as the key.
  const settings = await s.rawDb.query<{ value: string }>('select value from nodeharbor.settings');
  const secret = await storedSecret();
  for (const { value } of settings.rows) {
    await expect(s.rawDb.query('select extensions.pgp_sym_decrypt(api_key_encrypted, $1) from private.services', [value])).rejects.toThrow(/Wrong key/);
    expect(() => decryptSecret({ current: value, previous: undefined }, factor.id, secret)).toThrow();
  }
});

it("the database's own dump (PGlite's data folder with its WAL, or pg_dump) does not contain the key", async () => {
  const dump = await dumpDatabase();
  expect(dump.includes('nodeharbor.test')).toBe(true);
  expect(dump.includes(KEY_A)).toBe(false);
});

it('nothing decrypts in a transaction the server did not give the key', async () => {
  await expect(s.rawDb.query('select extensions.pgp_sym_decrypt(api_key_encrypted, private.encryption_key()) from private.services')).rejects.toThrow(
    /No encryption key is set in this transaction/,
  );
  await expect(apiKeys(s.rawDb)).rejects.toThrow(/No encryption key/);
  expect(await apiKeys(s.deps.db)).toEqual([GALA_KEY]);
});

it('our own logs never print the key', () => {
  expect(logLines.length).toBeGreaterThan(0);
  expect(logLines.join('\n')).not.toContain(KEY_A);
});

it('a start with a key the data was not encrypted with is refused and changes nothing', async () => {
  const before = await dumpTables(s.rawDb);
  await expect(startWith({ ENCRYPTION_KEY: WRONG })).rejects.toThrow(/ENCRYPTION_KEY is not the key this database was set up with/);
  expect(await dumpTables(s.rawDb)).toBe(before);
});

it('rotation then re-encryption leaves every value readable with the new key alone', async () => {
  const rotating = await startWith({ ENCRYPTION_KEY: KEY_B, ENCRYPTION_KEY_PREVIOUS: KEY_A });
  // During the rotation old values still read, and new ones are written under the new key.
  expect(await apiKeys(rotating.db)).toEqual([GALA_KEY]);
  const written = await rotating.db.query<{ k: Buffer }>(`select private.encrypt_api_key('fresh') as k`);
  expect((await s.rawDb.query<{ v: string }>('select extensions.pgp_sym_decrypt($1, $2) as v', [written.rows[0]!.k, KEY_B])).rows[0]!.v).toBe('fresh');

  const printed: string[] = [];
  await keysReencrypt.run(rotating, {}, (l) => printed.push(l));
  expect(printed).toEqual([
    'Encrypted 1 API key(s) and 1 TOTP secret(s) under ENCRYPTION_KEY.',
    'The database now accepts only ENCRYPTION_KEY: remove ENCRYPTION_KEY_PREVIOUS from every process.',
  ]);

  const rotated = await startWith({ ENCRYPTION_KEY: KEY_B });
  expect(await apiKeys(rotated.db)).toEqual([GALA_KEY]);
  expect(decryptSecret(rotated.encryptionKeys, factor.id, await storedSecret())).toBe(factor.secret);
  // The old key opens nothing any more, and is refused at start.
  await expect(s.rawDb.query('select extensions.pgp_sym_decrypt(api_key_encrypted, $1) from private.services', [KEY_A])).rejects.toThrow(/Wrong key/);
  const secret = await storedSecret();
  expect(() => decryptSecret({ current: KEY_A, previous: undefined }, factor.id, secret)).toThrow();
  await expect(startWith({ ENCRYPTION_KEY: KEY_A })).rejects.toThrow(/ENCRYPTION_KEY is not the key this database was set up with/);

  // Twice is harmless.
  printed.length = 0;
  await keysReencrypt.run(rotated, {}, (l) => printed.push(l));
  expect(printed).toEqual(['Encrypted 1 API key(s) and 1 TOTP secret(s) under ENCRYPTION_KEY.', 'The database accepts only ENCRYPTION_KEY.']);
  expect(await apiKeys(rotated.db)).toEqual([GALA_KEY]);
  expect(decryptSecret({ current: KEY_B, previous: undefined }, factor.id, await storedSecret())).toBe(factor.secret);
  expect((await dumpDatabase()).includes(KEY_B)).toBe(false);
});
