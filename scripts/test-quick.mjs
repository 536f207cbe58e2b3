// npm run test:quick [-- <commit>]: the inner loop, in a minute or two. Typecheck and lint at once,
// then the PGlite pass of only the test files that the change reaches through their imports:
// what differs from HEAD (uncommitted), or from <commit> when one is named (e.g. origin/main).
// SQL is no import: after a migration, also run the test files that cover it. npm test runs all.
import { spawn } from 'node:child_process';
import { join } from 'node:path';

const root = join(import.meta.dirname, '..');
const since = process.argv[2];
const run = (cmd, args) => new Promise((resolve) => spawn(cmd, args, { cwd: root, stdio: 'inherit' }).on('close', (code) => resolve(code === 0)));

const checks = await Promise.all([run('npx', ['tsc', '--noEmit', '-p', 'tsconfig.json']), run('npx', ['eslint', '.'])]);
const tests = await run('npx', ['vitest', 'run', since ? `--changed=${since}` : '--changed', '--passWithNoTests']);
if (!checks.every(Boolean) || !tests) {
  console.error(`\ntest:quick failed: ${[!checks[0] && 'typecheck', !checks[1] && 'lint', !tests && 'tests'].filter(Boolean).join(', ')}`);
  process.exit(1);
}
console.log('\ntest:quick passed.');
