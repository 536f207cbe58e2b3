import fs from 'node:fs';
import { dirname, join, relative } from 'node:path';

/**
 * A disk that keeps only what was fsynced, as a machine's disk is after a power cut: the page cache
 * is lost, so a file's content is what it was at its last fsync. It follows the process's file
 * operations on `dir` (through node:fs, where PGlite's NODEFS makes them) into `disk`, a copy of
 * `dir` made while nothing ran: at each fsync, what was written to the file since its last one is
 * copied there (a 16 MB WAL segment is not copied whole per commit); renames, unlinks and new
 * folders go there at once (they are journaled, and PostgreSQL fsyncs around them anyway).
 * `cut()` is the power cut: from then on nothing more reaches `disk`.
 */
export function followOntoDisk(dir: string, disk: string): { cut(): { fsyncs: number } } {
  fs.cpSync(dir, disk, { recursive: true });
  const real = { ...fs };
  const paths = new Map<number, string>();
  /** What was written to each file since its last fsync: [position, length], or 'all'. */
  const dirty = new Map<string, [number, number][] | 'all'>();
  let fsyncs = 0;
  const onDisk = (path: fs.PathLike) => {
    const rel = relative(dir, String(path));
    return rel.startsWith('..') ? undefined : join(disk, rel);
  };
  const hooks: Partial<typeof fs> = {
    openSync: ((path: fs.PathLike, flags: fs.OpenMode = 'r', mode?: fs.Mode) => {
      const fd = real.openSync(path, flags, mode);
      if (onDisk(path)) paths.set(fd, String(path));
      return fd;
    }) as typeof fs.openSync,
    closeSync: (fd) => {
      paths.delete(fd);
      real.closeSync(fd);
    },
    writeSync: ((fd: number, buffer: NodeJS.ArrayBufferView, offset?: number, length?: number, position?: number | null) => {
      const written = real.writeSync(fd, buffer, offset, length, position);
      const path = paths.get(fd);
      if (path) {
        const ranges = dirty.get(path) ?? [];
        if (ranges !== 'all' && typeof position === 'number') dirty.set(path, [...ranges, [position, written]]);
        else dirty.set(path, 'all');
      }
      return written;
    }) as typeof fs.writeSync,
    fsyncSync: (fd) => {
      real.fsyncSync(fd);
      const path = paths.get(fd);
      const target = path && onDisk(path);
      if (!path || !target) return;
      fsyncs++;
      if (real.fstatSync(fd).isDirectory()) return void real.mkdirSync(target, { recursive: true });
      const ranges = dirty.get(path);
      dirty.delete(path);
      if (ranges === 'all' || !real.existsSync(target)) {
        real.mkdirSync(dirname(target), { recursive: true });
        return real.copyFileSync(path, target);
      }
      const out = real.openSync(target, 'r+');
      try {
        real.ftruncateSync(out, real.fstatSync(fd).size);
        for (const [position, length] of ranges ?? []) {
          const bytes = Buffer.alloc(length);
          const read = real.readSync(fd, bytes, 0, length, position);
          real.writeSync(out, bytes, 0, read, position);
        }
      } finally {
        real.closeSync(out);
      }
    },
    renameSync: (from, to) => {
      real.renameSync(from, to);
      const pending = dirty.get(String(from));
      dirty.delete(String(from));
      if (pending) dirty.set(String(to), pending);
      const [a, b] = [onDisk(from), onDisk(to)];
      if (!a || !b) return;
      if (real.existsSync(a)) real.renameSync(a, b);
      else real.rmSync(b, { force: true });
    },
    unlinkSync: (path) => {
      real.unlinkSync(path);
      const target = onDisk(path);
      if (target) real.rmSync(target, { force: true });
    },
    mkdirSync: ((path: fs.PathLike, options?: fs.MakeDirectoryOptions) => {
      const made = real.mkdirSync(path, options);
      const target = onDisk(path);
      if (target) real.mkdirSync(target, { recursive: true });
      return made;
    }) as typeof fs.mkdirSync,
    rmdirSync: (path, options) => {
      real.rmdirSync(path, options);
      const target = onDisk(path);
      if (target) real.rmSync(target, { recursive: true, force: true });
    },
  };
  Object.assign(fs, hooks);
  return {
    cut() {
      for (const name of Object.keys(hooks)) Object.assign(fs, { [name]: real[name as keyof typeof fs] });
      return { fsyncs };
    },
  };
}
