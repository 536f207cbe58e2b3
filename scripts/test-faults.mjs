// npm run test:faults: the fault tests (test/faults) on the embedded database, then on PostgreSQL
// (TEST_DATABASE_URL, default the local one) when it answers. Each test keeps to the database its
// pass names: a power cut is the embedded one's, a worker killed on a shared queue PostgreSQL's.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { postgresAnswers } from './postgres-answers.mjs';

const root = join(import.meta.dirname, '..');
const pgUrl = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const run = (env) =>
  spawnSync('npx', ['vitest', 'run', '--config', 'vitest.faults.config.ts', ...process.argv.slice(2)], {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, ...env },
  }).status;

console.log('\n--- fault tests on PGlite ---');
let failed = run({ TEST_DB: 'pglite' }) !== 0;
if (await postgresAnswers(pgUrl)) {
  console.log('\n--- fault tests on PostgreSQL ---');
  failed = run({ TEST_DB: 'postgres', TEST_DATABASE_URL: pgUrl }) !== 0 || failed;
} else {
  console.error(`\nNo PostgreSQL answers at ${pgUrl}: the fault tests on PostgreSQL cannot run.`);
  failed = true;
}
process.exit(failed ? 1 : 0);
