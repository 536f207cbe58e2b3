import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { ROOT } from '../../src/server/paths';
// @ts-expect-error: a plain .mjs helper shared with npm start, without type declarations
import { buildIsCurrent } from '../../scripts/source-stamp.mjs';

/** One build of the app for every browser test, made only when the sources changed since the last. */
export default function setup(): void {
  if ((buildIsCurrent as (root: string) => boolean)(ROOT)) return;
  // vitest sets NODE_ENV=test, which would make Vite build React's development bundle: test what ships.
  const r = spawnSync(process.execPath, [join(ROOT, 'scripts/build.mjs')], { cwd: ROOT, stdio: 'inherit', env: { ...process.env, NODE_ENV: 'production' } });
  if (r.status !== 0) throw new Error('npm run build failed: the browser tests need the built app');
}
