// npm run build: the web app (dist/web, prerendered) and the server bundle (dist/server).
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildServer } from './build-server.mjs';
import { sourceStamp } from './source-stamp.mjs';

const root = join(import.meta.dirname, '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

if (pkg.scripts['build:web']) {
  const r = spawnSync('npm', ['run', '--silent', 'build:web'], { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

await buildServer(root, join(root, 'dist/server'));
mkdirSync(join(root, 'dist'), { recursive: true });
writeFileSync(join(root, 'dist/.source-stamp'), sourceStamp(root));
console.log('build complete: dist/web and dist/server');
