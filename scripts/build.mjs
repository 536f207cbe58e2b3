// npm run build: the web app (dist/web, prerendered) and the server bundle (dist/server).
import { build } from 'esbuild';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sourceStamp } from './source-stamp.mjs';

const root = join(import.meta.dirname, '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

if (pkg.scripts['build:web']) {
  const r = spawnSync('npm', ['run', '--silent', 'build:web'], { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

await build({
  entryPoints: ['src/server/main.ts', 'src/server/worker.ts', 'src/server/cli.ts'].map((f) => join(root, f)),
  outdir: join(root, 'dist/server'),
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  packages: 'external',
  sourcemap: true,
  logLevel: 'warning',
});

// Loaded by their paths on threads of their own (passwords.ts, statement-watchdog.ts), beside the bundles.
copyFileSync(join(root, 'src/server/auth/password-worker.mjs'), join(root, 'dist/server/password-worker.mjs'));
copyFileSync(join(root, 'src/server/db/statement-watchdog-worker.mjs'), join(root, 'dist/server/statement-watchdog-worker.mjs'));
mkdirSync(join(root, 'dist'), { recursive: true });
writeFileSync(join(root, 'dist/.source-stamp'), sourceStamp(root));
console.log('build complete: dist/web and dist/server');
