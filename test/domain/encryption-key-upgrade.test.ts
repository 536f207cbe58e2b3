import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { decryptSecret, encryptSecret } from '../../src/server/auth/mfa-secrets';
import { createUser } from '../../src/server/auth/users';
import { bootstrap } from '../../src/server/bootstrap';
import type { Database } from '../../src/server/db/database';
import { migrate } from '../../src/server/db/migrate';
import { loadConfig } from '../../src/server/env';
import { emptyTestDatabase, migrationsBefore } from '../helpers/database';
import { dumpTables } from '../helpers/dump';
import { GALA_KEY } from '../helpers/users';

// A database made by the migrations up to 0015, which kept ENCRYPTION_KEY in nodeharbor.settings,
// with a customer's API key and TOTP secret in it: after the upgrade it must hold only the check
// value, and everything must still read with the key the server has.
const KEY = 'upgrade-test-original-key-0123456789abcdefghij';
const TOTP_SECRET = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';

let db: Database;
let drop = async () => {};
let factorId: string;
beforeAll(async () => {
  const dir = migrationsBefore('0016');
  ({ db, drop } = await emptyTestDatabase('nh_upgrade', 5));
  expect((await migrate(db, { platform: true, dir })).at(-1)).toMatch(/^migrations\/0015_/);
  rmSync(dir, { recursive: true, force: true });
  // What bootstrap wrote at every start until now.
  await db.query(`insert into nodeharbor.settings (key, value) values ('encryption_key', $1)`, [KEY]);
  const user = await createUser(db, { email: 'upgraded@nodeharbor.test', password: 'correct-horse-battery' });
  await db.query(`insert into private.services (user_id, name, api_key_encrypted) values ($1, 'old', private.encrypt_api_key($2))`, [user.id, GALA_KEY]);
  factorId = randomUUID();
  await db.query(`insert into auth.mfa_factors (id, user_id, factor_type, status, secret) values ($1, $2, 'totp', 'verified', $3)`, [
    factorId,
    user.id,
    encryptSecret({ current: KEY, previous: undefined }, factorId, TOTP_SECRET),
  ]);
});
afterAll(async () => {
  await db.close();
  await drop();
});

function start(env: Record<string, string>, dataDir = mkdtempSync(join(tmpdir(), 'nh-upgrade-'))) {
  const config = loadConfig({ NODE_ENV: 'test', DATA_DIR: dataDir, JWT_SECRET: 'j'.repeat(32), LOG_LEVEL: 'silent', ...env });
  // A refused start closes its database; this one is shared by the whole file.
  return bootstrap(config, { db: { ...db, close: async () => {} } });
}

it('the embedded default moves the key out: its secrets file keeps it, the database only its check value', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'nh-upgrade-'));
  writeFileSync(join(dataDir, 'secrets.json'), JSON.stringify({ jwtSecret: 'j'.repeat(32), encryptionKey: KEY }), { mode: 0o600 });
  const deps = await start({}, dataDir);

  const dump = await dumpTables(db);
  expect(dump).toContain('upgraded@nodeharbor.test');
  expect(dump).not.toContain(KEY);
  const { rows } = await deps.db.query<{ k: string }>(`select private.service_json(id)->>'api_key' as k from private.services`);
  expect(rows).toEqual([{ k: GALA_KEY }]);
  const factor = await deps.db.query<{ secret: string }>('select secret from auth.mfa_factors where id = $1', [factorId]);
  expect(decryptSecret(deps.encryptionKeys, factorId, factor.rows[0]!.secret)).toBe(TOTP_SECRET);

  // The secrets file is now the key's only copy: a wrong ENCRYPTION_KEY, refused, must not replace it.
  const wrong = { ENCRYPTION_KEY: 'not-the-key-of-this-database-0123456789', JWT_SECRET: '' };
  await expect(start(wrong, dataDir)).rejects.toThrow(/ENCRYPTION_KEY is not the key/);
  expect(JSON.parse(readFileSync(join(dataDir, 'secrets.json'), 'utf8'))).toMatchObject({ encryptionKey: KEY });
  await start({}, dataDir);
});

it('ENCRYPTION_KEY, which DATABASE_URL requires, must match the check value, or the start is refused', async () => {
  await expect(start({ ENCRYPTION_KEY: 'not-the-key-of-this-database-0123456789' })).rejects.toThrow(
    /^Invalid configuration:\n {2}- ENCRYPTION_KEY is not the key this database was set up with/,
  );
  const deps = await start({ ENCRYPTION_KEY: KEY });
  const { rows } = await deps.db.query<{ k: string }>(`select private.service_json(id)->>'api_key' as k from private.services`);
  expect(rows).toEqual([{ k: GALA_KEY }]);
});
