// npm test: the whole suite.
//  1. unit and API tests on the embedded database (PGlite);
//  2. whole-process tests: `npm install && npm start` in a fresh clone, SIGKILL durability;
//  3. the server-side suite again on a real PostgreSQL (TEST_DATABASE_URL, default the local one);
//  4. the browser tests in Chromium, when the web app defines them.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';

const root = join(import.meta.dirname, '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const pgUrl = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const failures = [];

function step(name, cmd, args, env = {}) {
  console.log(`\n=== ${name} ===`);
  const r = spawnSync(cmd, args, { cwd: root, stdio: 'inherit', env: { ...process.env, ...env } });
  if (r.status !== 0) failures.push(name);
}

async function postgresAnswers() {
  const c = new pg.Client({ connectionString: pgUrl, connectionTimeoutMillis: 3000 });
  try {
    await c.connect();
    await c.end();
    return true;
  } catch {
    return false;
  }
}

step('unit and API tests on PGlite', 'npx', ['vitest', 'run']);
step('whole-process tests: a fresh clone, a SIGKILL', 'npx', ['vitest', 'run', '--config', 'vitest.slow.config.ts']);

if (await postgresAnswers()) {
  step('server tests on PostgreSQL', 'npx', ['vitest', 'run', 'test/'], { TEST_DB: 'postgres', TEST_DATABASE_URL: pgUrl });
} else {
  console.error(`\nNo PostgreSQL answers at ${pgUrl}: the PostgreSQL pass cannot run.`);
  console.error('Start one (e.g. apt-get install postgresql) or set TEST_DATABASE_URL; .ci/run does this for you.');
  failures.push('server tests on PostgreSQL (no database)');
}

if (pkg.scripts['test:e2e']) {
  if (!existsSync('/usr/bin/chromium')) {
    if (process.getuid?.() === 0) {
      step('install Chromium', 'sh', ['-c', 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null']);
    } else {
      console.error('\nThe browser tests need Debian\'s Chromium: run `sudo apt-get install -y chromium`.');
      failures.push('browser tests (no Chromium)');
    }
  }
  if (existsSync('/usr/bin/chromium')) step('browser tests in Chromium', 'npm', ['run', '--silent', 'test:e2e']);
}

if (failures.length) {
  console.error(`\nFailed: ${failures.join('; ')}`);
  process.exit(1);
}
console.log('\nAll test steps passed.');
