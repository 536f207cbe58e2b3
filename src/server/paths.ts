import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

function packageRoot(from: string): string {
  let dir = from;
  while (!existsSync(join(dir, 'package.json'))) {
    const up = dirname(dir);
    if (up === dir) throw new Error(`package.json not found above ${from}`);
    dir = up;
  }
  return dir;
}

/** The package root, found the same way from src/server (tsx) and from dist/server (the build). */
export const ROOT = packageRoot(import.meta.dirname);
export const DB_DIR = join(ROOT, 'db');
export const WEB_DIST = join(ROOT, 'dist', 'web');
