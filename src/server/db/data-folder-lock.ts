import { closeSync, constants, ftruncateSync, mkdirSync, openSync, readFileSync, writeSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { tryLock } from 'fs-native-extensions';

// The embedded database's data folder admits one process: two writing one PGlite directory would
// corrupt it. The lock is the kernel's (decision 026): an open-file-description lock (Linux
// F_OFD_SETLK, flock on macOS) on DATA_DIR/nodeharbor.lock, held while the file stays open and
// released by the kernel when the process ends however it ends, so no lock is ever stale. The
// file also names the holder's pid, for messages only; it is never removed, since a process could
// then lock a file that is no longer the one in the folder.

export type FolderLock = {
  /** Gives the folder back: unlocks and closes the lock file. */
  release(): void;
};

const lockFile = (dir: string) => join(resolve(dir), 'nodeharbor.lock');

/** Folders this process holds: a second open of one of them here would be refused by the kernel too, with a misleading message. */
const heldHere = new Set<string>();

/**
 * Takes the data folder's lock when no process holds it, and otherwise answers undefined at once.
 * Exactly one of any number of processes trying at once gets it.
 */
export function tryTakeLock(dir: string): FolderLock | undefined {
  const file = lockFile(dir);
  if (heldHere.has(file)) throw new Error(`This process already holds the data folder ${resolve(dir)}.`);
  // The CLI may come first to a DATA_DIR not made yet: made private, as openPglite makes it.
  mkdirSync(resolve(dir), { recursive: true, mode: 0o700 });
  // Not truncated on open: the holder's pid stays readable to those it refuses. O_NOFOLLOW: the
  // folder is private, yet a link planted in it must not make us lock (or write) another file.
  const fd = openSync(file, constants.O_RDWR | constants.O_CREAT | constants.O_NOFOLLOW, 0o600);
  let granted = false;
  try {
    granted = tryLock(fd);
  } finally {
    if (!granted) closeSync(fd);
  }
  if (!granted) return undefined;
  ftruncateSync(fd, 0);
  writeSync(fd, String(process.pid), 0);
  heldHere.add(file);
  let held = true;
  return {
    release() {
      if (!held) return;
      held = false;
      heldHere.delete(file);
      // Closing the file's only descriptor is what releases the lock.
      closeSync(fd);
    },
  };
}

/** Takes the data folder's lock, or throws the message that names the process holding it. */
export function takeLock(dir: string): FolderLock {
  const lock = tryTakeLock(dir);
  if (!lock) throw inUse(lockHolder(dir));
  return lock;
}

/**
 * The pid the holder wrote into the lock file; undefined when no other live process holds the
 * folder. The holder writes it just after it takes the lock, so a reader that comes in between
 * waits the moment that takes (at most about a second).
 */
export function lockHolder(dir: string): number | undefined {
  const file = lockFile(dir);
  if (heldHere.has(file)) return undefined;
  const deadline = Date.now() + 1000;
  for (;;) {
    const lock = tryTakeLock(dir);
    if (lock) {
      lock.release();
      return undefined;
    }
    const pid = readPid(file);
    if (pid !== undefined && alive(pid)) return pid;
    if (Date.now() > deadline) return undefined;
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 5);
  }
}

/** The message for a folder another process holds; `pid` when it is known. */
export function inUse(pid: number | undefined): Error {
  return new Error(
    `The data folder is in use by another NodeHarbor process (${pid === undefined ? 'its pid unknown' : `pid ${pid}`}). Stop it first, or set DATA_DIR to another folder.`,
  );
}

function readPid(file: string): number | undefined {
  try {
    const pid = Number(readFileSync(file, 'utf8'));
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
