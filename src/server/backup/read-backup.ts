import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createGunzip } from 'node:zlib';
import { CliError } from '../cli/cli-error';
import { BACKUP_FORMAT, BACKUP_VERSION, manifestSchema, type Manifest } from './backup-format';

/** Rows handed to `onRows` at a time: one INSERT each in a restore. */
const BATCH_ROWS = 500;
/** A longer line than this is no row of ours: the file is damaged. */
export const MAX_LINE_BYTES = 256 * 1024 * 1024;

/** Receives a table's rows in file order, each as its JSON text, in batches of up to BATCH_ROWS. */
export type RowSink = (table: string, rows: string[]) => Promise<void>;

function damaged(file: string, why: string): CliError {
  return new CliError(`${file} is truncated or damaged: ${why}.`);
}

/** The content is not what the manifest's checksum (or the one checked before) says. */
export function checksumMismatch(file: string): CliError {
  return new CliError(`${file} is damaged: its content does not match its checksum.`);
}

function parseManifest(file: string, line: Buffer): Manifest {
  let raw: unknown;
  try {
    raw = JSON.parse(line.toString('utf8'));
  } catch {
    throw new CliError(`${file} is not a NodeHarbor backup.`);
  }
  const head = raw as { format?: unknown; version?: unknown };
  if (typeof raw !== 'object' || raw === null || head.format !== BACKUP_FORMAT) throw new CliError(`${file} is not a NodeHarbor backup.`);
  if (head.version !== BACKUP_VERSION) {
    throw new CliError(`${file} is a NodeHarbor backup of format version ${String(head.version)}; this NodeHarbor reads version ${BACKUP_VERSION}.`);
  }
  const parsed = manifestSchema.safeParse(raw);
  if (!parsed.success) throw damaged(file, 'its manifest is incomplete');
  return parsed.data;
}

/**
 * Reads a backup file through and checks all of it: the manifest, every line, each table's row
 * count and the content's SHA-256. With `onRows`, also hands over the rows as it goes; a caller
 * that writes them must do so in a transaction it rolls back when this throws, since the checksum
 * is known only at the end. Every fault of the file is a CliError that names the file and what is
 * wrong; what `onRows` throws comes through as it is. `maxLineBytes` is lower only in tests.
 */
export async function readBackup(file: string, onRows?: RowSink, maxLineBytes = MAX_LINE_BYTES): Promise<Manifest> {
  const info = await stat(file).catch(() => undefined);
  if (!info?.isFile()) throw new CliError(`No backup file at ${file}`);
  const gunzip = createGunzip();
  const input = createReadStream(file);
  input.on('error', (e) => gunzip.destroy(e));
  input.pipe(gunzip);

  const hash = createHash('sha256');
  let manifest: Manifest | undefined;
  let tableIndex = -1;
  let table: { name: string; rows: number } | undefined;
  let batch: string[] = [];
  const flush = async () => {
    if (onRows && table && batch.length) await onRows(table.name, batch);
    batch = [];
  };
  const endTable = async () => {
    if (!table) return;
    await flush();
    const expected = manifest!.tables[tableIndex]!.rows;
    if (table.rows !== expected) throw damaged(file, `${table.name} has ${table.rows} rows where its manifest says ${expected}`);
  };
  const line = async (bytes: Buffer) => {
    if (!manifest) {
      manifest = parseManifest(file, bytes);
      return;
    }
    hash.update(bytes).update('\n');
    const text = bytes.toString('utf8');
    if (text.startsWith('[')) {
      await endTable();
      const next = manifest.tables[++tableIndex];
      let name: unknown;
      try {
        name = (JSON.parse(text) as unknown[])[1];
      } catch {
        throw damaged(file, 'a table heading is not JSON');
      }
      if (!next || name !== next.name) throw damaged(file, `found table ${String(name)} where its manifest has ${next?.name ?? 'no more tables'}`);
      table = { name: next.name, rows: 0 };
    } else if (text.startsWith('{') && table) {
      if (!onRows) {
        try {
          JSON.parse(text);
        } catch {
          throw damaged(file, `a row of ${table.name} is not JSON`);
        }
      }
      table.rows += 1;
      batch.push(text);
      if (batch.length >= BATCH_ROWS) await flush();
    } else {
      throw damaged(file, 'a line is neither a table heading nor a row');
    }
  };

  // The bytes of the line under way, kept as chunks: a long line is joined once, not at every chunk.
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  // What a line's handling threw (a row the database refused, say) is no damage of the file's.
  let refused: unknown;
  const take = (bytes: Buffer) =>
    line(bytes).catch((e: unknown) => {
      refused = e;
      throw e;
    });
  try {
    for await (const chunk of gunzip as AsyncIterable<Buffer>) {
      let start = 0;
      for (let nl = chunk.indexOf(10); nl !== -1; nl = chunk.indexOf(10, start)) {
        const piece = chunk.subarray(start, nl);
        await take(pending.length ? Buffer.concat([...pending, piece]) : piece);
        pending = [];
        pendingBytes = 0;
        start = nl + 1;
      }
      if (start < chunk.length) {
        pending.push(chunk.subarray(start));
        pendingBytes += chunk.length - start;
        if (pendingBytes > maxLineBytes) throw damaged(file, 'a line is longer than any row');
      }
    }
  } catch (e) {
    if (e instanceof CliError || e === refused) throw e;
    // zlib's own words: "unexpected end of file" (truncated), "incorrect header check" (not gzip).
    if (!manifest) throw new CliError(`${file} is not a NodeHarbor backup (${(e as Error).message}).`);
    throw damaged(file, (e as Error).message);
  } finally {
    input.destroy();
  }
  if (!manifest) throw new CliError(`${file} is not a NodeHarbor backup.`);
  if (pendingBytes) throw damaged(file, 'it ends in the middle of a line');
  await endTable();
  if (tableIndex !== manifest.tables.length - 1) {
    throw damaged(file, `it holds ${tableIndex + 1} of the ${manifest.tables.length} tables its manifest lists`);
  }
  if (hash.digest('hex') !== manifest.sha256) throw checksumMismatch(file);
  return manifest;
}

/**
 * Reads a backup through and checks it as readBackup does, every row parsed as JSON, and hands
 * `onRow` each row of the `tables` named: what a restore looks at before it writes anything.
 */
export function inspectBackup(file: string, tables: ReadonlySet<string>, onRow: (table: string, row: Record<string, unknown>) => void): Promise<Manifest> {
  return readBackup(file, async (table, rows) => {
    for (const text of rows) {
      let row: unknown;
      try {
        row = JSON.parse(text);
      } catch {
        throw damaged(file, `a row of ${table} is not JSON`);
      }
      if (tables.has(table)) onRow(table, row as Record<string, unknown>);
    }
  });
}
