import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { PGlite, types } from '@electric-sql/pglite';
import { pgcrypto } from '@electric-sql/pglite/contrib/pgcrypto';
import type { Database, Queryable, QueryResult } from './database';
import { DURABLE_START_PARAMS, DurableNodeFS, syncTree } from './durable-nodefs';
import { takeLock, type FolderLock } from './data-folder-lock';
import { makePrivateFolder } from './private-folder';

type Raw = { rows: unknown[]; affectedRows?: number; fields: { name: string; dataTypeID: number }[] };

// NOTE: PGlite returns int8 as number already; keep numeric as text like the pg adapter does.
const parsers = { [types.NUMERIC]: (v: string) => v };

type Driver = {
  query: (sql: string, params?: unknown[], opts?: object) => Promise<unknown>;
  exec: (sql: string) => Promise<unknown>;
};

function wrap(q: Driver): Queryable {
  return {
    async exec(sql) {
      await q.exec(sql);
    },
    async query<T>(sql: string, params: readonly unknown[] = []): Promise<QueryResult<T>> {
      const r = (await q.query(sql, [...params], { parsers })) as Raw;
      return { rows: r.rows as T[], rowCount: r.affectedRows || r.rows.length, fields: r.fields };
    },
  };
}

/**
 * Opens PGlite. With a directory it is persisted there and guarded by the data folder's lock,
 * because two processes writing one PGlite directory would corrupt it: taken here, or handed over
 * by a caller that took it already (the CLI), and released on close. Without one it lives in
 * memory (tests).
 */
export async function openPglite(dir?: string, loadDataDir?: Blob, heldLock?: FolderLock): Promise<Database & { dump(): Promise<Blob> }> {
  let lock: FolderLock | undefined;
  const dataDir = dir ? join(resolve(dir), 'pglite') : undefined;
  const created = dataDir !== undefined && !existsSync(join(dataDir, 'PG_VERSION'));
  if (dir) {
    makePrivateFolder(resolve(dir));
    lock = heldLock ?? takeLock(dir);
  }
  let db: PGlite;
  try {
    db = await PGlite.create({
      // On disk, a commit is on the disk before it is answered (durable-nodefs.ts).
      ...(dataDir ? { fs: new DurableNodeFS(dataDir), startParams: DURABLE_START_PARAMS } : {}),
      ...(loadDataDir ? { loadDataDir } : {}),
      extensions: { pgcrypto },
    });
  } catch (e) {
    lock?.release();
    throw e;
  }
  if (dir) {
    // The files PGlite has just created, on a first start: private, and on the disk.
    makePrivateFolder(resolve(dir));
    if (created) syncTree(dataDir!);
  }
  const base = wrap(db);
  return {
    kind: 'pglite',
    query: base.query,
    exec: base.exec,
    transaction: (fn) => db.transaction((tx) => fn(wrap(tx))),
    // In-process: no round trips to save, so simply one statement after the other.
    batch: (statements) =>
      db.transaction(async (tx) => {
        const q = wrap(tx);
        const out = [];
        for (const s of statements) out.push(await q.query<Record<string, unknown>>(s.sql, s.params));
        return out;
      }),
    dump: () => db.dumpDataDir('none'),
    async close() {
      await db.close();
      lock?.release();
    },
  };
}
