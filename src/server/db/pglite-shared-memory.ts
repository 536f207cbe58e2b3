import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** WebAssembly's limits flags (binary format §5.3.8): bit 0 a maximum follows, bit 1 shared. */
const HAS_MAX = 0x01;
const SHARED = 0x02;
const IMPORT_SECTION = 2;
const enum ImportKind {
  Function = 0,
  Table = 1,
  Memory = 2,
  Global = 3,
  Tag = 4,
}

/** The maximum PGlite gives its memory (2 GiB in 64 KiB pages), which a shared memory must name. */
const MAX_PAGES = 32768;

function unsignedLeb(value: number): number[] {
  const out: number[] = [];
  do {
    let byte = value & 0x7f;
    value >>>= 7;
    if (value) byte |= 0x80;
    out.push(byte);
  } while (value);
  return out;
}

/**
 * The module with the memory it imports marked as shared, or undefined when it imports none that
 * is not. PGlite's PostgreSQL and its loadable modules all import one memory, `env.memory`; a
 * shared memory is the same memory that another thread can also write into, which is how the
 * statement watchdog raises PostgreSQL's own cancel flags while a statement runs
 * (docs/decisions/027-a-statement-deadline-for-the-embedded-database.md). Only the import's
 * limits change (a shared memory must name its maximum: PGlite's own); a module with no atomic
 * instructions may use a shared memory (the threads proposal).
 */
export function shareImportedMemory(bytes: Uint8Array): Uint8Array<ArrayBuffer> | undefined {
  let p = 8; // magic and version
  const leb = (): number => {
    let value = 0;
    let shift = 0;
    let byte: number;
    do {
      byte = bytes[p++]!;
      value += (byte & 0x7f) * 2 ** shift;
      shift += 7;
    } while (byte & 0x80);
    return value;
  };
  const skipLimits = () => {
    const flags = bytes[p++]!;
    leb();
    if (flags & HAS_MAX) leb();
  };
  while (p < bytes.length) {
    const sectionAt = p;
    const id = bytes[p++]!;
    const size = leb();
    const contentAt = p;
    if (id !== IMPORT_SECTION) {
      p = contentAt + size;
      continue;
    }
    for (let n = leb(); n > 0; n--) {
      for (const _name of ['module', 'field']) {
        const length = leb();
        p += length;
      }
      const kind = bytes[p++]!;
      if (kind === ImportKind.Function) leb();
      else if (kind === ImportKind.Table) {
        p++; // element type
        skipLimits();
      } else if (kind === ImportKind.Memory) {
        const flagsAt = p;
        const flags = bytes[p++]!;
        if (flags & SHARED) return undefined;
        leb();
        const limitsEnd = flags & HAS_MAX ? (leb(), p) : p;
        const maximum = flags & HAS_MAX ? [] : unsignedLeb(MAX_PAGES);
        const content = [...bytes.subarray(contentAt, flagsAt), flags | HAS_MAX | SHARED, ...bytes.subarray(flagsAt + 1, limitsEnd), ...maximum];
        const rest = bytes.subarray(limitsEnd, contentAt + size);
        const out = new Uint8Array(bytes.length + maximum.length + 5);
        let at = 0;
        for (const part of [bytes.subarray(0, sectionAt), [id], unsignedLeb(size + maximum.length), content, rest, bytes.subarray(contentAt + size)]) {
          out.set(part, at);
          at += part.length;
        }
        return out.subarray(0, at);
      } else if (kind === ImportKind.Global) p += 2;
      else if (kind === ImportKind.Tag) {
        p++;
        leb();
      } else throw new Error(`unknown import kind ${kind}`);
    }
    return undefined;
  }
  return undefined;
}

let compiled: Promise<WebAssembly.Module> | undefined;

/** PGlite's PostgreSQL compiled once per process, importing a shared memory. */
export function sharedMemoryPglite(): Promise<WebAssembly.Module> {
  compiled ??= (async () => {
    const dist = dirname(createRequire(import.meta.url).resolve('@electric-sql/pglite'));
    const shared = shareImportedMemory(readFileSync(join(dist, 'pglite.wasm')));
    if (!shared) throw new Error("PGlite's pglite.wasm imports no unshared memory: its build has changed");
    return WebAssembly.compile(shared);
  })();
  return compiled;
}

/** A shared memory for one PGlite, `initialBytes` large to begin with as PGlite's own would be. */
export function sharedMemory(initialBytes: number): WebAssembly.Memory {
  return new WebAssembly.Memory({ initial: initialBytes / 65536, maximum: MAX_PAGES, shared: true });
}

type EmscriptenFS = {
  readdir(path: string): string[];
  readFile(path: string): Uint8Array;
  writeFile(path: string, data: Uint8Array): void;
};

/** Where PGlite keeps PostgreSQL's loadable modules (plpgsql, the encodings, extensions). */
const LIBRARIES = '/pglite/lib/postgresql';

/**
 * Marks the memory import of every loadable module in PGlite's file system as shared, before
 * PostgreSQL loads one: a module that imports an unshared memory cannot be linked to a shared one.
 */
export function shareLibraries(fs: EmscriptenFS): void {
  for (const name of fs.readdir(LIBRARIES)) {
    if (!name.endsWith('.so')) continue;
    const path = `${LIBRARIES}/${name}`;
    const shared = shareImportedMemory(fs.readFile(path));
    if (shared) fs.writeFile(path, shared);
  }
}
