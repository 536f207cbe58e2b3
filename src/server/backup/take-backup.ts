import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream, type WriteStream } from 'node:fs';
import { chmod, open, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { once } from 'node:events';
import { pipeline } from 'node:stream/promises';
import { createGzip, gzipSync } from 'node:zlib';
import { CliError } from '../cli/cli-error';
import type { Queryable } from '../db/database';
import { BACKUP_FORMAT, BACKUP_VERSION, DATA_SUMMARY_SQL, jwtSecretCheck, type DataSummary, type Manifest } from './backup-format';
import { signManifest } from './backup-signature';
import { appliedMigrations, listSequences, listTables, withSnapshot, type BackupSource } from './snapshot';

/** Rows fetched at a time from a table's cursor: memory stays small however big the table. */
const FETCH_ROWS = 1000;

export type BackupResult = { file: string; manifest: Manifest; summary: DataSummary };

/** The gzip stream into the content's temporary file, with the hash of what goes in. */
function contentWriter(path: string) {
  const hash = createHash('sha256');
  const gzip = createGzip();
  const file = createWriteStream(path, { flags: 'wx', mode: 0o600 });
  const done = pipeline(gzip, file);
  // An abort rejects it while no one waits on it yet.
  done.catch(() => {});
  return {
    async write(text: string) {
      hash.update(text);
      if (!gzip.write(text)) await Promise.race([once(gzip, 'drain'), done]);
    },
    async end(): Promise<string> {
      gzip.end();
      await done;
      return hash.digest('hex');
    },
    abort() {
      gzip.destroy();
    },
  };
}

async function fsyncPath(path: string): Promise<void> {
  const fd = await open(path, 'r');
  try {
    await fd.sync();
  } finally {
    await fd.close();
  }
}

/** Reads every table of the snapshot through `write`, and returns the manifest's facts about them. */
async function readSnapshot(q: Queryable, write: (text: string) => Promise<void>) {
  const tables = await listTables(q);
  const counted: Manifest['tables'] = [];
  for (const table of tables) {
    await write(`${JSON.stringify(['table', table.name])}\n`);
    let rows = 0;
    await q.query(`declare nh_backup no scroll cursor for select row_to_json(t)::text as r from ${table.name} t`);
    for (;;) {
      const batch = await q.query<{ r: string }>(`fetch forward ${FETCH_ROWS} from nh_backup`);
      if (batch.rows.length === 0) break;
      rows += batch.rows.length;
      await write(`${batch.rows.map((row) => row.r).join('\n')}\n`);
    }
    await q.query('close nh_backup');
    counted.push({ name: table.name, rows });
  }
  const sequences: Manifest['sequences'] = [];
  for (const name of await listSequences(q)) {
    const { rows } = await q.query<{ value: string; is_called: boolean }>(`select last_value::text as value, is_called from ${name}`);
    sequences.push({ name, value: Number(rows[0]!.value), isCalled: rows[0]!.is_called });
  }
  const check = await q.query<{ value: string }>(`select value from nodeharbor.settings where key = 'encryption_key_check'`);
  const summary = (await q.query<Omit<DataSummary, 'rows' | 'tables'>>(DATA_SUMMARY_SQL)).rows[0]!;
  return {
    tables: counted,
    sequences,
    migrations: await appliedMigrations(q),
    encryptionKeyCheck: check.rows[0]?.value ?? null,
    summary: { ...summary, rows: counted.reduce((n, t) => n + t.rows, 0), tables: counted.length },
  };
}

/**
 * Writes a backup of the whole database to `file`: read in one snapshot (snapshot.ts), written to
 * a temporary file beside it (mode 0600: it holds password hashes and the encrypted keys), synced,
 * then renamed, so `file` is either absent or complete. It holds no secret that opens the keys,
 * and is signed with the key derived from ENCRYPTION_KEY. `within` reads a transaction that
 * already holds every table locked (a restore's, of what it replaces) instead of a snapshot.
 */
export async function takeBackup(source: BackupSource, file: string, within?: Queryable): Promise<BackupResult> {
  const target = resolve(file);
  const dir = dirname(target);
  if (!(await stat(dir).catch(() => undefined))?.isDirectory()) throw new CliError(`No folder ${dir} to write the backup into.`);
  if (await stat(target).catch(() => undefined)) throw new CliError(`${target} already exists: give the backup a new file name.`);
  const tag = `${process.pid}-${randomBytes(4).toString('hex')}`;
  const contentFile = join(dir, `.${basename(target)}.${tag}.content`);
  const wholeFile = join(dir, `.${basename(target)}.${tag}.tmp`);
  const content = contentWriter(contentFile);
  try {
    // The snapshot's moment, near enough: it is taken by the first statement after this.
    const takenAt = new Date().toISOString();
    const facts = await (within ? readSnapshot(within, content.write) : withSnapshot(source, (q) => readSnapshot(q, content.write)));
    const unsigned: Manifest = {
      format: BACKUP_FORMAT,
      version: BACKUP_VERSION,
      takenAt,
      database: source.db.kind,
      migrations: facts.migrations,
      tables: facts.tables,
      sequences: facts.sequences,
      encryptionKeyCheck: facts.encryptionKeyCheck,
      jwtSecretCheck: jwtSecretCheck(source.jwtSecret),
      sha256: await content.end(),
    };
    const manifest: Manifest = { ...unsigned, signature: signManifest(unsigned, source.encryptionKey) };
    const whole: WriteStream = createWriteStream(wholeFile, { flags: 'wx', mode: 0o600 });
    whole.write(gzipSync(`${JSON.stringify(manifest)}\n`));
    await pipeline(createReadStream(contentFile), whole);
    await chmod(wholeFile, 0o600);
    await fsyncPath(wholeFile);
    await rename(wholeFile, target);
    await fsyncPath(dir);
    return { file: target, manifest, summary: facts.summary };
  } catch (e) {
    content.abort();
    await rm(wholeFile, { force: true });
    throw e;
  } finally {
    await rm(contentFile, { force: true });
  }
}
