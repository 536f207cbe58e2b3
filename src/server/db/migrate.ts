import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Database, Queryable } from './database';

import { DB_DIR } from '../paths';

export type MigrateOptions = {
  /** Apply db/platform first: only when this server hosts auth itself (not on a hosted Supabase). */
  platform: boolean;
  dir?: string;
};

/**
 * The client-side deadline of a migration's statements on PostgreSQL, instead of
 * DATABASE_QUERY_TIMEOUT_MS: a migration may rewrite a large table, or wait for another process
 * that applies a long one (the advisory lock below).
 */
const MIGRATION_QUERY_TIMEOUT_MS = 30 * 60_000;

/** One migration file as this version of the server has it. */
export type MigrationFile = { name: string; sql: string; checksum: string };

/** Where a migration stands between the files and the database. */
export type MigrationState =
  | { name: string; state: 'applied'; appliedAt: Date }
  | { name: string; state: 'pending' }
  /** Applied, then its file changed: the database has what the file no longer says. */
  | { name: string; state: 'edited'; appliedAt: Date }
  /** Recorded as applied, but this version has no such file (a newer version applied it). */
  | { name: string; state: 'unknown'; appliedAt: Date };

/** A migration file changed after it was applied: the start stops rather than run on a schema no file describes. */
export class MigrationEditedError extends Error {
  override name = 'MigrationEditedError';
  constructor(readonly migration: string) {
    super(
      `Migration ${migration} was edited after it was applied: the database does not hold what the file says. ` +
        'Put the file back as it was applied (git log -p db/) and write the change as a new migration.',
    );
  }
}

/** sha256 of the file's text, its line endings made LF, so that a checkout's CRLF is no edit. */
function checksum(sql: string): string {
  return createHash('sha256').update(sql.replace(/\r\n/g, '\n')).digest('hex');
}

/** db/platform/*.sql (when asked), then db/migrations/*.sql, in the order they apply. */
export function migrationFiles(opts: MigrateOptions): MigrationFile[] {
  const root = opts.dir ?? DB_DIR;
  const folders = [...(opts.platform ? ['platform'] : []), 'migrations'];
  return folders.flatMap((folder) =>
    readdirSync(join(root, folder))
      .filter((f) => f.endsWith('.sql'))
      .sort()
      .map((file) => {
        const sql = readFileSync(join(root, folder, file), 'utf8');
        return { name: `${folder}/${file}`, sql, checksum: checksum(sql) };
      }),
  );
}

type AppliedRow = { name: string; checksum: string | null; applied_at: Date };

/** What nodeharbor.migrations records; nothing on a database never migrated. */
async function appliedMigrations(q: Queryable): Promise<Map<string, AppliedRow>> {
  const { rows: exists } = await q.query<{ t: string | null }>(`select to_regclass('nodeharbor.migrations')::text as t`);
  if (!exists[0]?.t) return new Map();
  const { rows } = await q.query<AppliedRow>('select name, checksum, applied_at from nodeharbor.migrations');
  return new Map(rows.map((r) => [r.name, r]));
}

/**
 * Each of `files` and each recorded migration, in the files' order, then those only the database
 * knows. A migration recorded before checksums were kept (null) counts as applied as it is.
 */
export async function migrationStatus(q: Queryable, files: readonly MigrationFile[]): Promise<MigrationState[]> {
  const applied = await appliedMigrations(q);
  const states: MigrationState[] = files.map((f) => {
    const row = applied.get(f.name);
    if (!row) return { name: f.name, state: 'pending' };
    return { name: f.name, state: row.checksum === null || row.checksum === f.checksum ? 'applied' : 'edited', appliedAt: row.applied_at };
  });
  const known = new Set(files.map((f) => f.name));
  const unknown = [...applied.values()].filter((r) => !known.has(r.name)).sort((a, b) => (a.name < b.name ? -1 : 1));
  return [...states, ...unknown.map((r) => ({ name: r.name, state: 'unknown' as const, appliedAt: r.applied_at }))];
}

/**
 * Applies db/platform/*.sql (when asked) then db/migrations/*.sql, each once, in name order, each
 * in its own transaction, recorded in nodeharbor.migrations with its checksum. A recorded migration
 * whose file changed since stops it (MigrationEditedError); one recorded before checksums were kept
 * gets its file's. An advisory lock makes several processes starting together on one PostgreSQL
 * apply each file once.
 */
export async function migrate(db: Database, opts: MigrateOptions): Promise<string[]> {
  const applied: string[] = [];
  const deadlines = { queryMs: MIGRATION_QUERY_TIMEOUT_MS };
  await db.transaction(
    (tx) =>
      tx.exec(`
        create schema if not exists nodeharbor;
        create table if not exists nodeharbor.migrations (
          name text primary key,
          applied_at timestamptz not null default now()
        );
        alter table nodeharbor.migrations add column if not exists checksum text;
      `),
    deadlines,
  );
  for (const file of migrationFiles(opts)) {
    await db.transaction(async (tx) => {
      // Another process may be applying a long migration: wait for it, past DATABASE_LOCK_TIMEOUT_MS.
      await tx.exec('set local lock_timeout = 0');
      await tx.query('select pg_advisory_xact_lock(7262001)');
      const { rows } = await tx.query<{ checksum: string | null }>('select checksum from nodeharbor.migrations where name = $1', [file.name]);
      const recorded = rows[0];
      if (recorded?.checksum === null) {
        await tx.query('update nodeharbor.migrations set checksum = $2 where name = $1', [file.name, file.checksum]);
      } else if (recorded) {
        if (recorded.checksum !== file.checksum) throw new MigrationEditedError(file.name);
      } else {
        await tx.exec(file.sql);
        await tx.query('insert into nodeharbor.migrations (name, checksum) values ($1, $2)', [file.name, file.checksum]);
        applied.push(file.name);
      }
    }, deadlines);
  }
  return applied;
}
