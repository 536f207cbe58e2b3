import { linkSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

// The embedded database's data folder admits one process: two writing one PGlite directory would
// corrupt it. Its lock file, DATA_DIR/nodeharbor.lock, names the process that holds it.

/** The live process, other than this one, that holds the data folder `dir`; undefined when none does. */
export function lockHolder(dir: string): number | undefined {
  try {
    const pid = readPid(join(resolve(dir), 'nodeharbor.lock'));
    return pid !== undefined && pid !== process.pid && alive(pid) ? pid : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Takes the data folder's lock: created with 'wx', so of two processes starting at once exactly
 * one creates it. A lock whose process is gone (a crash, a kill -9) is stale: it is renamed away
 * to a name of this process's own, and taken only if what was moved is still that stale lock;
 * when another process took it over in between, its lock is put back and it wins.
 */
export function takeLock(file: string): void {
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      writeFileSync(file, String(process.pid), { flag: 'wx' });
      return;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    const holder = readPid(file);
    if (holder === process.pid) return;
    if (holder !== undefined && alive(holder)) throw inUse(holder);
    const moved = `${file}.stale-${process.pid}`;
    try {
      renameSync(file, moved);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') continue;
      throw e;
    }
    const took = readPid(moved);
    if (took !== undefined && took !== holder && alive(took)) {
      // Another process replaced the stale lock with its own between our look and our rename.
      try {
        linkSync(moved, file);
      } finally {
        rmSync(moved, { force: true });
      }
      throw inUse(took);
    }
    rmSync(moved, { force: true });
  }
  throw new Error(`Could not take the data folder's lock (${file}): other processes keep taking it. Stop them first.`);
}

/** The pid a lock file names; undefined when it is gone, empty or not a number (a crash mid-write). */
function readPid(file: string): number | undefined {
  try {
    const pid = Number(readFileSync(file, 'utf8'));
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
}

function inUse(pid: number): Error {
  return new Error(`The data folder is in use by another NodeHarbor process (pid ${pid}). Stop it first, or set DATA_DIR to another folder.`);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
