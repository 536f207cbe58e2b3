import { mkdir, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { decryptSecret, encryptSecret } from '../auth/mfa-secrets';
import { CliError } from '../cli/cli-error';
import type { Database, Queryable } from '../db/database';
import type { EncryptionKeys } from '../db/with-encryption-keys';
import { encryptionKeyCheck, recordEncryptionKey } from '../encryption-key-check';
import { DATA_SUMMARY_SQL, jwtSecretCheck, type DataSummary, type Manifest } from './backup-format';
import { checkSignature, type Signature } from './backup-signature';
import { checksumMismatch, inspectBackup, readBackup } from './read-backup';
import { scheduledBackupName } from './scheduled-backups';
import { appliedMigrations, listTables } from './snapshot';
import { takeBackup } from './take-backup';

/** Where a backup goes: a migrated database, with the keys this process encrypts with. */
export type RestoreTarget = { db: Database; encryptionKeys: EncryptionKeys; jwtSecret: Uint8Array };

type RestoreOptions = {
  /** Replace a database that holds data. */
  force: boolean;
  /** The target in the operator's words, for the refusal of one that holds data. */
  where: string;
  /** Restore a backup this installation did not sign (an old one, or another's), after saying what it grants. */
  trustUnsigned?: boolean;
  /** Lines for the operator while it runs: the admins before and after, and what an unsigned backup grants. */
  print?: (line: string) => void;
  /**
   * A restore of this installation's own database: what it replaces is first backed up into
   * `dir`, and an entry of the admin audit log, written after the backup's rows, names `actor`.
   */
  audit?: { actor: string; dir: string };
};

export type RestoreResult = {
  manifest: Manifest;
  summary: DataSummary;
  /** Whether access tokens signed before the backup are accepted here (the same JWT secret). */
  sameJwtSecret: boolean;
  /** With `audit`: the backup of the data it replaced. */
  keptIn?: string;
};

/** What a restore reads from the rows before it writes any: who the users are, who is admin, the balances. */
type Contents = {
  users: Map<string, { email: string | null; role: string }>;
  admins: string[];
  balances: { userId: string; balance: number }[];
};

const LOOKED_AT = new Set(['auth.users', 'public.admin_users', 'public.user_credits']);

async function readContents(file: string): Promise<{ manifest: Manifest; contents: Contents }> {
  const contents: Contents = { users: new Map(), admins: [], balances: [] };
  const manifest = await inspectBackup(file, LOOKED_AT, (table, row) => {
    if (table === 'auth.users') contents.users.set(String(row.id), { email: typeof row.email === 'string' ? row.email : null, role: String(row.role) });
    else if (table === 'public.admin_users') contents.admins.push(String(row.user_id));
    else contents.balances.push({ userId: String(row.user_id), balance: Number(row.balance) });
  });
  return { manifest, contents };
}

const dollars = (cents: number) => `$${(cents / 100).toFixed(2)}`;
const list = (names: string[]) => (names.length ? names.join(', ') : 'no one');

/** What a backup gives whoever it names, in one line: the admins, and the money. */
function grants(c: Contents): string {
  const name = (id: string) => c.users.get(id)?.email ?? id;
  const funded = c.balances.map((b) => ({ ...b, cents: Math.round(b.balance * 100) })).filter((b) => b.cents > 0);
  funded.sort((a, b) => b.cents - a.cents);
  const total = funded.reduce((n, b) => n + b.cents, 0);
  const largest = funded.slice(0, 3).map((b) => `${name(b.userId)} ${dollars(b.cents)}`);
  return `admin to ${list(c.admins.map(name))}, and ${dollars(total)} in balances to ${funded.length} user(s)${largest.length ? ` (the largest: ${largest.join(', ')})` : ''}`;
}

/** Another role is an edit: sign-in once made it the token's (issue 42), and migration 0038 refuses it. */
function refuseRoles(file: string, c: Contents): void {
  const odd = [...c.users.values()].filter((u) => u.role !== 'authenticated');
  if (!odd.length) return;
  const more = odd.length > 1 ? ` (and ${odd.length - 1} other user(s))` : '';
  throw new CliError(
    `${file} gives ${odd[0]!.email ?? 'a user'} the role ${odd[0]!.role}${more}: a user's role is only ever authenticated, so NodeHarbor did not write it.`,
  );
}

const unsignedWords: Record<Exclude<Signature, 'signed'>, string> = {
  unsigned: 'is not signed',
  foreign: 'is not signed by this installation (another ENCRYPTION_KEY signed it, or it was changed since)',
};

/** The balances that are not the sum of their ledger rows: none in a database NodeHarbor wrote (design §2). */
async function refuseBalancesOffTheLedger(tx: Queryable, file: string): Promise<void> {
  const { rows } = await tx.query<{ name: string; balance: string; ledger: string; count: number }>(
    `select coalesce(u.email, c.user_id::text) as name, c.balance::text as balance,
            coalesce(sum(t.amount), 0)::numeric(14, 2)::text as ledger, (count(*) over ())::int as count
       from public.user_credits c
       left join auth.users u on u.id = c.user_id
       left join public.credit_transactions t on t.user_id = c.user_id
      group by c.user_id, u.email, c.balance
     having c.balance <> coalesce(sum(t.amount), 0)
      order by 1 limit 1`,
  );
  const off = rows[0];
  if (!off) return;
  const more = off.count > 1 ? ` (and ${off.count - 1} other user(s))` : '';
  throw new CliError(
    `${file} gives ${off.name} a balance of $${off.balance} where their ledger sums to $${off.ledger}${more}: a balance always equals its ledger, so NodeHarbor did not write it.`,
  );
}

/** Today's admins beside the backup's, before anything is replaced: a restore must not make an admin unseen. */
async function printAdmins(tx: Queryable, c: Contents, print: (line: string) => void): Promise<void> {
  const { rows } = await tx.query<{ id: string; name: string }>(
    `select a.user_id::text as id, coalesce(u.email, a.user_id::text) as name from public.admin_users a left join auth.users u on u.id = a.user_id order by 2`,
  );
  const now = rows.map((r) => r.name);
  const nameOf = (id: string) => c.users.get(id)?.email ?? id;
  const after = c.admins.map(nameOf).sort();
  // By account, not by address: a file may hold another account under an admin's address of today.
  const added = c.admins
    .filter((id) => !rows.some((r) => r.id === id))
    .map((id) => (now.includes(nameOf(id)) ? `${nameOf(id)}, another account than today's` : nameOf(id)))
    .sort();
  print(`Admins now: ${list(now)}. Admins after the restore: ${list(after)}${added.length ? ` (new: ${added.join(', ')})` : ''}.`);
}

/** The backup of what a restore replaces, read in its transaction after its locks; a name retention never removes. */
async function keepReplaced(tx: Queryable, target: RestoreTarget, dir: string): Promise<string> {
  const file = join(resolve(dir), scheduledBackupName(new Date()).replace(/^nodeharbor-/, 'nodeharbor-before-restore-'));
  try {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    await takeBackup({ db: target.db, databaseUrl: undefined, jwtSecret: target.jwtSecret, encryptionKey: target.encryptionKeys.current }, file, tx);
  } catch (e) {
    // The folder's fault (missing, not a folder, not writable, full) is the operator's to mend.
    if (e instanceof CliError || (e as NodeJS.ErrnoException).syscall === undefined) throw e;
    throw new CliError(
      `Could not back up the data the restore would replace into ${dir} (${(e as Error).message}): set BACKUP_DIR to a folder this process can write.`,
    );
  }
  return file;
}

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
 * restored or nothing changes. The whole file is checked first (its checksum, its signature, the
 * roles it gives), and again as it is loaded, and the loaded balances against their ledger. User
 * triggers are off for the restored rows (ALTER TABLE ... DISABLE TRIGGER USER, inside the
 * transaction, which the owner may do without being a superuser): the rows already hold what the
 * triggers would derive (profiles, balances, the user count) and would be written twice.
 */
export async function restoreBackup(target: RestoreTarget, file: string, opts: RestoreOptions): Promise<RestoreResult> {
  const { manifest, contents } = await readContents(file);
  const migrations = await appliedMigrations(target.db);
  if (migrations.join('\n') !== manifest.migrations.join('\n')) {
    throw new CliError(
      `${file} was taken at migration ${manifest.migrations.at(-1) ?? 'none'}, and this NodeHarbor is at ${migrations.at(-1) ?? 'none'}: restore it with the NodeHarbor version that took it.`,
    );
  }
  const { current, previous } = target.encryptionKeys;
  const opens = [current, previous].filter((k) => k !== undefined).map(encryptionKeyCheck);
  if (manifest.encryptionKeyCheck !== null && !opens.includes(manifest.encryptionKeyCheck)) throw wrongKey();
  // Refused whoever signed it: no --trust-unsigned lets a row make a service_role token.
  refuseRoles(file, contents);
  const signature = checkSignature(manifest, target.encryptionKeys);
  const print = opts.print ?? (() => {});
  if (signature !== 'signed') {
    if (!opts.trustUnsigned)
      throw new CliError(`${file} ${unsignedWords[signature]}: it grants ${grants(contents)}. If you trust it, run again with --trust-unsigned.`);
    print(`${file} ${unsignedWords[signature]}; restoring it as --trust-unsigned asks. It grants ${grants(contents)}.`);
  }

  // Set inside the transaction, read after it.
  const kept: { file?: string } = {};
  try {
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
      await printAdmins(tx, contents, print);
      if (opts.audit) kept.file = await keepReplaced(tx, target, opts.audit.dir);
      for (const t of names) await tx.exec(`alter table ${t} disable trigger user`);
      await tx.exec(`truncate table ${all}`);
      const columns = new Map(tables.map((t) => [t.name, t.columns.join(', ')]));
      let restored = 0;
      const loaded = await readBackup(file, async (table, rows) => {
        const cols = columns.get(table)!;
        const r = await tx.query(
          `insert into ${table} (${cols}) overriding system value select ${cols} from json_populate_recordset(null::${table}, $1::json)`,
          [`[${rows.join(',')}]`],
        );
        restored += r.rowCount;
      });
      // The rows loaded are the rows checked above: a file swapped meanwhile is refused.
      if (loaded.sha256 !== manifest.sha256) throw checksumMismatch(file);
      for (const t of names) await tx.exec(`alter table ${t} enable trigger user`);
      for (const s of manifest.sequences) await tx.query(`select setval($1::regclass, $2, $3)`, [s.name, s.value, s.isCalled]);
      await refuseBalancesOffTheLedger(tx, file);
      await reencrypt(tx, target.encryptionKeys);
      const figures = (await tx.query<Omit<DataSummary, 'rows' | 'tables'>>(DATA_SUMMARY_SQL)).rows[0]!;
      if (opts.audit) {
        // After the backup's rows, so that it stays in the log the restore leaves; the log it replaced is in kept.file.
        await tx.query(`select private.record_admin_action('database.restore', 'database', null, $1, $2, $3, $4)`, [
          file,
          { kept_in: kept.file },
          { taken_at: manifest.takenAt, signed: signature === 'signed', users: figures.users, services: figures.services, ledger_rows: figures.ledgerRows },
          opts.audit.actor,
        ]);
      }
      return { ...figures, rows: restored, tables: names.length };
    });
    return { manifest, summary, sameJwtSecret: manifest.jwtSecretCheck === jwtSecretCheck(target.jwtSecret), keptIn: kept.file };
  } catch (e) {
    // Nothing was replaced: a backup of it would only be a stray copy.
    if (kept.file) await rm(kept.file, { force: true });
    throw e;
  }
}
