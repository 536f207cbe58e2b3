import { decryptSecret, encryptSecret } from '../auth/mfa-secrets';
import { CliError } from '../cli/cli-error';
import type { Database, Queryable } from '../db/database';
import type { EncryptionKeys } from '../db/with-encryption-keys';
import { encryptionKeyCheck, recordEncryptionKey } from '../encryption-key-check';
import { DATA_SUMMARY_SQL, jwtSecretCheck, type DataSummary, type Manifest } from './backup-format';
import { readBackup } from './read-backup';
import { appliedMigrations, listTables } from './snapshot';

/** Where a backup goes: a migrated database, with the keys this process encrypts with. */
export type RestoreTarget = { db: Database; encryptionKeys: EncryptionKeys; jwtSecret: Uint8Array };

export type RestoreResult = {
  manifest: Manifest;
  summary: DataSummary;
  /** Whether access tokens signed before the backup are accepted here (the same JWT secret). */
  sameJwtSecret: boolean;
};

/** What makes a database worth protecting from a restore; a fresh one has at most its first admin. */
type Holdings = { users: number; non_admins: number; services: number; ledger: number; purchases: number };

async function holdings(q: Queryable): Promise<Holdings> {
  const { rows } = await q.query<Holdings>(
    `select (select count(*) from auth.users)::int as users,
            (select count(*) from auth.users u where not exists (select 1 from public.admin_users a where a.user_id = u.id))::int as non_admins,
            (select count(*) from private.services)::int as services,
            (select count(*) from public.credit_transactions)::int as ledger,
            (select count(*) from public.credit_purchases)::int as purchases`,
  );
  return rows[0]!;
}

/** A freshly started database holds at most the admin account its first start created, and no money or service. */
const isEmpty = (h: Holdings) => h.services === 0 && h.ledger === 0 && h.purchases === 0 && h.users <= 1 && h.non_admins === 0;

/** What a restore replaces: refused without --force, so that a mistyped target loses nothing. */
function refuseData(h: Pick<Holdings, 'users' | 'services' | 'ledger'>, where: string): CliError {
  return new CliError(
    `${where} already holds data (${h.users} user(s), ${h.services} service(s), ${h.ledger} ledger row(s)): run again with --force to replace all of it.`,
  );
}

/**
 * Every stored API key and TOTP secret, decrypted with whichever of the target's keys opens it and
 * encrypted again under its current one, as keys:reencrypt does: a backup taken under the key
 * that is now ENCRYPTION_KEY_PREVIOUS is readable with ENCRYPTION_KEY alone afterwards.
 */
async function reencrypt(tx: Queryable, keys: EncryptionKeys): Promise<void> {
  try {
    await tx.query('select private.reencrypt_api_keys()');
    const factors = await tx.query<{ id: string; secret: string }>(`select id, secret from auth.mfa_factors where coalesce(secret, '') <> ''`);
    for (const f of factors.rows) {
      await tx.query('update auth.mfa_factors set secret = $2 where id = $1', [f.id, encryptSecret(keys, f.id, decryptSecret(keys, f.id, f.secret))]);
    }
  } catch (e) {
    // pgcrypto's "Wrong key or corrupt data" (39000), or Node's failed authentication.
    if ((e as { code?: string }).code === '39000' || /unable to authenticate|bad decrypt/i.test((e as Error).message)) throw wrongKey();
    throw e;
  }
  await recordEncryptionKey(tx, keys.current);
}

const wrongKey = () =>
  new CliError(
    "The backup's stored API keys and TOTP secrets were encrypted with another ENCRYPTION_KEY than this database's. Give that key as ENCRYPTION_KEY_PREVIOUS (on the embedded database it is the encryptionKey in the old DATA_DIR/secrets.json; to npm start as well, if it is running) and restore again: they are then encrypted again under ENCRYPTION_KEY.",
  );

/**
 * Replaces every row of the target with the backup's, in one transaction: either all of it is
 * restored or nothing changes. The whole file is checked first (readBackup), and again as it is
 * loaded. User triggers are off for the restored rows (ALTER TABLE ... DISABLE TRIGGER USER, inside
 * the transaction, which the owner may do without being a superuser): the rows already hold what
 * the triggers would derive (profiles, balances, the user count) and would be written twice.
 */
export async function restoreBackup(target: RestoreTarget, file: string, opts: { force: boolean; where: string }): Promise<RestoreResult> {
  const manifest = await readBackup(file);
  const migrations = await appliedMigrations(target.db);
  if (migrations.join('\n') !== manifest.migrations.join('\n')) {
    throw new CliError(
      `${file} was taken at migration ${manifest.migrations.at(-1) ?? 'none'}, and this NodeHarbor is at ${migrations.at(-1) ?? 'none'}: restore it with the NodeHarbor version that took it.`,
    );
  }
  const { current, previous } = target.encryptionKeys;
  const opens = [current, previous].filter((k) => k !== undefined).map(encryptionKeyCheck);
  if (manifest.encryptionKeyCheck !== null && !opens.includes(manifest.encryptionKeyCheck)) throw wrongKey();

  const summary = await target.db.transaction(async (tx) => {
    // Waits for the transactions under way, as a migration does, rather than failing after DATABASE_LOCK_TIMEOUT_MS.
    await tx.exec('set local lock_timeout = 0');
    const tables = await listTables(tx);
    const names = tables.map((t) => t.name);
    if (
      [...names].sort().join('\n') !==
      manifest.tables
        .map((t) => t.name)
        .sort()
        .join('\n')
    ) {
      throw new CliError(`${file} lists other tables than this database has, though at the same migration: it was not taken by NodeHarbor.`);
    }
    const all = names.join(', ');
    await tx.exec(`lock table ${all} in access exclusive mode`);
    const held = await holdings(tx);
    if (!opts.force && !isEmpty(held)) throw refuseData(held, opts.where);
    for (const t of names) await tx.exec(`alter table ${t} disable trigger user`);
    await tx.exec(`truncate table ${all}`);
    const columns = new Map(tables.map((t) => [t.name, t.columns.join(', ')]));
    let restored = 0;
    await readBackup(file, async (table, rows) => {
      const cols = columns.get(table)!;
      const r = await tx.query(`insert into ${table} (${cols}) overriding system value select ${cols} from json_populate_recordset(null::${table}, $1::json)`, [
        `[${rows.join(',')}]`,
      ]);
      restored += r.rowCount;
    });
    for (const t of names) await tx.exec(`alter table ${t} enable trigger user`);
    for (const s of manifest.sequences) await tx.query(`select setval($1::regclass, $2, $3)`, [s.name, s.value, s.isCalled]);
    await reencrypt(tx, target.encryptionKeys);
    const figures = (await tx.query<Omit<DataSummary, 'rows' | 'tables'>>(DATA_SUMMARY_SQL)).rows[0]!;
    return { ...figures, rows: restored, tables: names.length };
  });
  return { manifest, summary, sameJwtSecret: manifest.jwtSecretCheck === jwtSecretCheck(target.jwtSecret) };
}
