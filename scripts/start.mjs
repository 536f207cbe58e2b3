// npm start: builds what is missing or out of date, then runs the server in this process
// (so SIGTERM reaches it directly and it can shut down cleanly).
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { buildIsCurrent } from './source-stamp.mjs';

const root = join(import.meta.dirname, '..');
if (!buildIsCurrent(root)) {
  console.log('Building NodeHarbor (first start, or the sources changed)...');
  const r = spawnSync(process.execPath, [join(root, 'scripts/build.mjs')], { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}
await import(pathToFileURL(join(root, 'dist/server/main.js')).href);
