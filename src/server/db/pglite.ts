import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { PGlite, types, type PGliteOptions } from '@electric-sql/pglite';
import { pgcrypto } from '@electric-sql/pglite/contrib/pgcrypto';
import { isDbError, type Database, type Deadlines, type Queryable, type QueryResult } from './database';
import { DURABLE_START_PARAMS, DurableNodeFS, syncTree } from './durable-nodefs';
import { takeLock, type FolderLock } from './data-folder-lock';
import { makePrivateFolder } from './private-folder';
import { shareLibraries, sharedMemory, sharedMemoryPglite } from './pglite-shared-memory';
import { StatementWatchdog } from './statement-watchdog';

type Raw = { rows: unknown[]; affectedRows?: number; fields: { name: string; dataTypeID: number }[] };

// NOTE: PGlite returns int8 as number already; keep numeric as text like the pg adapter does.
const parsers = { [types.NUMERIC]: (v: string) => v };

type Driver = {
  query: (sql: string, params?: unknown[], opts?: object) => Promise<unknown>;
  exec: (sql: string) => Promise<unknown>;
};

/**
 * The deadline of the statements PGlite runs now (Deadlines.embeddedMs), set by the transaction
 * that holds PGlite: no other statement runs until that transaction ends, as PGlite's own query,
 * exec and transaction all take its one transaction lock.
 */
type Armed = { ms: number | undefined };

function wrap(q: Driver, armed: Armed): Queryable {
  return {
    async exec(sql) {
      await q.exec(sql);
    },
    async query<T>(sql: string, params: readonly unknown[] = []): Promise<QueryResult<T>> {
      try {
        const r = (await q.query(sql, [...params], { parsers })) as Raw;
        return { rows: r.rows as T[], rowCount: r.affectedRows || r.rows.length, fields: r.fields };
      } catch (e) {
        // Cancelled by the watchdog at its deadline: say so as PostgreSQL's statement_timeout does.
        if (isDbError(e) && e.code === '57014' && armed.ms !== undefined) e.message = 'canceling statement due to statement timeout';
        throw e;
      }
    },
  };
}

/**
 * PostgreSQL's shared buffers in PGlite: 16 MB, where initdb writes 128 MB. PGlite's memory is
 * Emscripten's, whose mmap zero-fills what it maps, so every buffer was resident from the start:
 * 140 of the 451 MB `npm start` held idle (issue 40). An embedded database is small; pages it
 * does not keep are read again from the operating system's cache.
 */
const SHARED_BUFFERS = ['-c', 'shared_buffers=16MB'];

/** PGlite's own first memory: 128 MiB. */
const INITIAL_MEMORY = 128 * 1024 * 1024;

type Opened = { db: PGlite; watchdog: StatementWatchdog; armed: Armed };

/**
 * PGlite with its statements under the watchdog (statement-watchdog.ts): its PostgreSQL linked to
 * a shared memory, and each synchronous step it takes limited by the caller's deadline.
 */
async function createWatched(options: PGliteOptions): Promise<Opened> {
  const memory = sharedMemory(INITIAL_MEMORY);
  // Handed over once and not kept: a closed PGlite lets its memory go, but V8 does not count a
  // shared memory as the garbage collector's business, so one held by any object that outlives
  // the close stays in the process (a test process opens hundreds).
  let handOver: WebAssembly.Memory | undefined = memory;
  const db = await PGlite.create({
    ...options,
    pgliteWasmModule: await sharedMemoryPglite(),
    extensions: {
      ...options.extensions,
      // Not an extension of PostgreSQL's: the one hook PGlite offers into its Emscripten options.
      // noWasmDecoding: an extension's modules are linked when PostgreSQL loads them, from the
      // file system where shareLibraries has marked them, not compiled as their bundle unpacks.
      sharedMemory: {
        name: 'shared memory',
        setup: async (_pg: unknown, emscriptenOpts: object) => {
          const wasmMemory = handOver;
          handOver = undefined;
          return { emscriptenOpts: { ...emscriptenOpts, wasmMemory, noWasmDecoding: true } };
        },
      },
    },
  });
  const mod = db.Module as unknown as { FS: Parameters<typeof shareLibraries>[0]; _QueryCancelPending: number; _InterruptPending: number };
  shareLibraries(mod.FS);
  const flags = [mod._QueryCancelPending, mod._InterruptPending];
  if (!flags.every((at) => Number.isInteger(at) && at > 0))
    throw new Error("PGlite's build no longer exports PostgreSQL's cancel flags: no statement deadline");
  const watchdog = new StatementWatchdog(memory, flags);
  const step = db.execProtocolRawSync.bind(db);
  const armed: Armed = { ms: undefined };
  db.execProtocolRawSync = (message) => {
    const { ms } = armed;
    return ms === undefined ? step(message) : watchdog.run(ms, () => step(message));
  };
  return { db, watchdog, armed };
}

/**
 * Opens PGlite with the watchdog. PGlite makes a new database with a PostgreSQL of its own whose
 * memory is not shared, which the shared-memory build cannot link to: a new database is made
 * first by PGlite as it is (into the folder, or into a tar file for one in memory), then opened.
 */
async function openWatched(options: () => PGliteOptions, fresh: boolean): Promise<Opened> {
  if (!fresh) return createWatched(options());
  const plain = await PGlite.create(options());
  const onDisk = options().fs !== undefined;
  const made = onDisk ? undefined : await plain.dumpDataDir('none');
  await plain.close();
  // The folder now holds the database, including anything the first open loaded into it.
  const { loadDataDir: _loaded, ...rest } = options();
  return createWatched(onDisk ? rest : { ...rest, loadDataDir: made! });
}

const pgliteFolder = (dir: string) => join(resolve(dir), 'pglite');

/** Whether the data folder `dir` holds an embedded database (one openPglite made there), without opening or making anything. */
export function holdsDatabase(dir: string): boolean {
  return existsSync(join(pgliteFolder(dir), 'PG_VERSION'));
}

/**
 * Opens PGlite. With a directory it is persisted there and guarded by the data folder's lock,
 * because two processes writing one PGlite directory would corrupt it: taken here, or handed over
 * by a caller that took it already (the CLI), and released on close. Without one it lives in
 * memory (tests).
 */
export async function openPglite(dir?: string, loadDataDir?: Blob, heldLock?: FolderLock): Promise<Database & { dump(): Promise<Blob> }> {
  let lock: FolderLock | undefined;
  const dataDir = dir ? pgliteFolder(dir) : undefined;
  const created = dir !== undefined && !holdsDatabase(dir);
  if (dir) {
    makePrivateFolder(resolve(dir));
    lock = heldLock ?? takeLock(dir);
  }
  let db: PGlite;
  let watchdog: StatementWatchdog;
  let armed: Armed;
  try {
    ({ db, watchdog, armed } = await openWatched(
      () => ({
        // On disk, a commit is on the disk before it is answered (durable-nodefs.ts).
        ...(dataDir
          ? { fs: new DurableNodeFS(dataDir), startParams: [...DURABLE_START_PARAMS, ...SHARED_BUFFERS] }
          : { startParams: [...PGlite.defaultStartParams, ...SHARED_BUFFERS] }),
        ...(loadDataDir ? { loadDataDir } : {}),
        extensions: { pgcrypto },
      }),
      dataDir ? created : !loadDataDir,
    ));
  } catch (e) {
    lock?.release();
    throw e;
  }
  if (dir) {
    // The files PGlite has just created, on a first start: private, and on the disk.
    makePrivateFolder(resolve(dir));
    if (created) syncTree(dataDir!);
  }
  const base = wrap(db, armed);
  /** `fn` inside PGlite's transaction, its statements under the deadline when there is one. */
  const within = <T>(deadlines: Deadlines | undefined, fn: (tx: Queryable) => Promise<T>): Promise<T> =>
    db.transaction(async (tx) => {
      armed.ms = deadlines?.embeddedMs;
      try {
        return await fn(wrap(tx, armed));
      } finally {
        armed.ms = undefined;
      }
    });
  return {
    kind: 'pglite',
    query: base.query,
    exec: base.exec,
    transaction: (fn, deadlines) => within(deadlines, fn),
    // In-process: no round trips to save, so simply one statement after the other.
    batch: (statements, deadlines) =>
      within(deadlines, async (q) => {
        const out = [];
        for (const s of statements) out.push(await q.query<Record<string, unknown>>(s.sql, s.params));
        return out;
      }),
    dump: () => db.dumpDataDir('none'),
    async close() {
      await db.close();
      await watchdog.close();
      lock?.release();
    },
  };
}
