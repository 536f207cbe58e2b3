// npm run dev: the API server with reload on change (tsx watch) and Vite's dev server for the web app.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');
const procs = [spawn('npx', ['tsx', 'watch', 'src/server/main.ts'], { cwd: root, stdio: 'inherit', env: { ...process.env, NODE_ENV: 'development' } })];
if (existsSync(join(root, 'vite.config.ts'))) {
  procs.push(spawn('npx', ['vite'], { cwd: root, stdio: 'inherit' }));
}
const stop = () => procs.forEach((p) => p.kill('SIGTERM'));
process.on('SIGINT', stop);
process.on('SIGTERM', stop);
