import fs from 'node:fs';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { NodeFS } from '@electric-sql/pglite/nodefs';

/** WASI's EIO: what fsync answers PostgreSQL when the disk refused, so that it stops rather than acknowledge. */
const WASI_EIO = 29;

type NodeStream = { nfd?: number };
type WithNodeFs = { NODEFS: { stream_ops: { fsync?: (stream: NodeStream) => number } } };
type InitResult = Awaited<ReturnType<NodeFS['init']>>;

/**
 * PGlite's NODEFS with a working fsync. Emscripten's NODEFS has none (an fsync of one of its files
 * does nothing), and PGlite starts PostgreSQL with fsync off (-F): a commit reached the operating
 * system's page cache, not the disk, so a power cut could lose acknowledged payments and tear
 * the WAL. Here fsync reaches the file, and PostgreSQL runs with fsync on: it syncs the WAL before a
 * commit is answered and the data files at each checkpoint, as a PostgreSQL server does.
 * (docs/decisions/014-a-durable-embedded-database.md)
 */
export class DurableNodeFS extends NodeFS {
  override async init(pg: PGlite, opts: Parameters<NodeFS['init']>[1]): Promise<InitResult> {
    const { emscriptenOpts } = await super.init(pg, opts);
    const syncFiles = (mod: unknown) => {
      (mod as WithNodeFs).NODEFS.stream_ops.fsync = (stream) => {
        try {
          // Through the module object, not a named import: a test stands in for the disk there.
          fs.fsyncSync(stream.nfd!);
          return 0;
        } catch {
          return WASI_EIO;
        }
      };
    };
    return { emscriptenOpts: { ...emscriptenOpts, preRun: [syncFiles, ...(emscriptenOpts.preRun ?? [])] } };
  }
}

/**
 * PGlite's start parameters with fsync on: without -F, and with fsync() for the WAL, as
 * Emscripten's fdatasync (PostgreSQL's default wal_sync_method on Linux) does nothing.
 */
export const DURABLE_START_PARAMS = [...PGlite.defaultStartParams.filter((p) => p !== '-F'), '-c', 'wal_sync_method=fsync'];

/**
 * fsyncs every file and folder under `dir`, deepest first: a new data folder is written by PGlite's
 * initdb without any fsync, and what a checkpoint never touches would otherwise stay in the page cache.
 */
export function syncTree(dir: string): void {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const path = join(entry.parentPath, entry.name);
    if (entry.isDirectory()) syncTree(path);
    else if (entry.isFile()) syncPath(path);
  }
  syncPath(dir);
}

function syncPath(path: string): void {
  const fd = fs.openSync(path, 'r');
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}
