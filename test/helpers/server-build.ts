import { existsSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { inject } from 'vitest';
import { buildServer } from '../../scripts/build-server.mjs';
import { sourceStamp } from '../../scripts/source-stamp.mjs';
import { ROOT } from '../../src/server/paths';

declare module 'vitest' {
  export interface ProvidedContext {
    serverBuild: string;
  }
}

/** Under the package root, where the server finds its files from (paths.ts). */
const BUILDS = join(ROOT, 'node_modules/.cache/nodeharbor-test-server');
const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * (Global setup.) The server's bundles for the sources as they are, built once per change of them,
 * for the processes the tests start: one file to load, as npm start runs it, where tsx compiled
 * every module again in each process (about 1 s of CPU per process instead of 2.4; a pass starts
 * a hundred). Built apart from dist/, which the browser tests' build may be writing meanwhile.
 */
export async function serverBuild(): Promise<string> {
  const dir = join(BUILDS, sourceStamp(ROOT).slice(0, 16));
  if (existsSync(dir)) return dir;
  // Made whole under another name first: passes starting at once may each make one.
  const partial = `${dir}.${process.pid}`;
  await buildServer(ROOT, partial);
  try {
    renameSync(partial, dir);
  } catch {
    rmSync(partial, { recursive: true, force: true });
  }
  // Builds of sources long since changed; a pass starting beside this one may be removing them too.
  for (const old of readdirSync(BUILDS)) {
    const path = join(BUILDS, old);
    const made = statSync(path, { throwIfNoEntry: false })?.mtimeMs;
    if (path !== dir && made !== undefined && Date.now() - made > DAY_MS) rmSync(path, { recursive: true, force: true });
  }
  return dir;
}

/** The built `main.js`, `worker.js` or `cli.js` of this run, for a test's own process. */
export const serverEntry = (name: 'main' | 'worker' | 'cli'): string => join(inject('serverBuild'), `${name}.js`);
