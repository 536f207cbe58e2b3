import pg from 'pg';
import type { Database, Queryable, QueryResult } from '../db/database';
import type { AppDeps } from '../deps';

/** What a backup reads: the server's database, and on PostgreSQL its URL, for a connection of its own. */
export type BackupSource = {
  db: Database;
  databaseUrl: string | undefined;
  /** The JWT secret the data's sessions are signed with (deps.keys.jwtSecret). */
  jwtSecret: Uint8Array;
  /** ENCRYPTION_KEY, whose derived key signs the backup (backup-signature.ts). */
  encryptionKey: string;
};

/** The source of a backup taken by this process. */
export function backupSource(deps: Pick<AppDeps, 'db' | 'config' | 'keys' | 'encryptionKeys'>): BackupSource {
  return { db: deps.db, databaseUrl: deps.config.databaseUrl, jwtSecret: deps.keys.jwtSecret, encryptionKey: deps.encryptionKeys.current };
}

function wrapClient(client: pg.Client): Queryable {
  return {
    async exec(sql) {
      await client.query(sql);
    },
    async query<T>(sql: string, params: readonly unknown[] = []): Promise<QueryResult<T>> {
      const r = await client.query(sql, [...params]);
      return { rows: r.rows as T[], rowCount: r.rowCount ?? r.rows.length, fields: r.fields.map((f) => ({ name: f.name, dataTypeID: f.dataTypeID })) };
    },
  };
}

/**
 * Runs `fn` on one snapshot of the whole database, so that every table is read as of one moment:
 * a balance and the ledger rows it sums come from the same instant. On PostgreSQL a connection of
 * its own in a READ ONLY, REPEATABLE READ transaction (the pool's transactions are READ COMMITTED,
 * where each statement sees later commits); writers go on meanwhile. PGlite runs one transaction
 * at a time, so its transaction is the snapshot, and everything else waits for it.
 */
export async function withSnapshot<T>(source: BackupSource, fn: (q: Queryable) => Promise<T>): Promise<T> {
  if (source.db.kind === 'pglite') return source.db.transaction(fn);
  // The pool's READ COMMITTED transactions would mix moments: refuse rather than write such a backup.
  if (!source.databaseUrl) throw new Error('a backup of PostgreSQL needs its DATABASE_URL, for a snapshot of its own');
  const client = new pg.Client({ connectionString: source.databaseUrl });
  // A lost connection rejects the statement under way; the event itself must not crash the process.
  client.on('error', () => {});
  await client.connect();
  try {
    await client.query('begin isolation level repeatable read read only');
    const out = await fn(wrapClient(client));
    await client.query('commit');
    return out;
  } finally {
    await client.end().catch(() => {});
  }
}

/** One table of NodeHarbor's, with the columns a restore writes (generated columns compute themselves). */
export type TableInfo = { name: string; columns: string[] };

// Every ordinary table outside PostgreSQL's own schemas, except what an extension owns and the
// migrations' bookkeeping, which the manifest records instead: whatever schema a migration adds is in.
const OURS = `n.nspname not in ('pg_catalog', 'information_schema') and n.nspname not like 'pg\\_%'
  and not exists (select 1 from pg_depend d where d.classid = 'pg_class'::regclass and d.objid = c.oid and d.deptype = 'e')`;

/**
 * NodeHarbor's tables, parents before the tables whose foreign keys reference them, so that rows
 * can be inserted in this order with every constraint checked.
 */
export async function listTables(q: Queryable): Promise<TableInfo[]> {
  const { rows } = await q.query<{ oid: number; name: string; columns: string[] }>(
    `select c.oid::int8 as oid, format('%I.%I', n.nspname, c.relname) as name,
            array(select format('%I', a.attname) from pg_attribute a
                   where a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped and a.attgenerated = ''
                   order by a.attnum) as columns
       from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where c.relkind = 'r' and ${OURS} and (n.nspname, c.relname) <> ('nodeharbor', 'migrations')
      order by n.nspname collate "C", c.relname collate "C"`,
  );
  const { rows: keys } = await q.query<{ child: number; parent: number }>(
    `select conrelid::int8 as child, confrelid::int8 as parent from pg_constraint where contype = 'f' and conrelid <> confrelid`,
  );
  const parents = new Map<number, number[]>(rows.map((t) => [t.oid, []]));
  for (const k of keys) parents.get(k.child)?.push(k.parent);
  const ordered: TableInfo[] = [];
  const placed = new Set<number>();
  const byOid = new Map(rows.map((t) => [t.oid, t]));
  const place = (oid: number, path: Set<number>) => {
    if (placed.has(oid) || !byOid.has(oid)) return;
    if (path.has(oid)) throw new Error(`the foreign keys of ${byOid.get(oid)!.name} form a cycle, which a restore cannot order`);
    path.add(oid);
    for (const parent of parents.get(oid) ?? []) place(parent, path);
    path.delete(oid);
    placed.add(oid);
    const t = byOid.get(oid)!;
    ordered.push({ name: t.name, columns: t.columns });
  };
  for (const t of rows) place(t.oid, new Set());
  return ordered;
}

/** NodeHarbor's sequences (bigserial ids), by qualified name. */
export async function listSequences(q: Queryable): Promise<string[]> {
  const { rows } = await q.query<{ name: string }>(
    `select format('%I.%I', n.nspname, c.relname) as name
       from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where c.relkind = 'S' and ${OURS} order by n.nspname collate "C", c.relname collate "C"`,
  );
  return rows.map((r) => r.name);
}

/** The migrations applied, in order: what a backup was taken at, and what a restore needs. */
export async function appliedMigrations(q: Queryable): Promise<string[]> {
  const { rows } = await q.query<{ name: string }>('select name from nodeharbor.migrations order by name collate "C"');
  return rows.map((r) => r.name);
}
