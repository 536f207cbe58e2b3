// npm test: the whole suite.
//  1. unit and API tests on the embedded database (PGlite);
//  2. the whole-process test of `npm install && npm start` in a fresh clone, and the fault tests
//     (npm run test:faults: SIGKILLs, a power cut, a database outage, hostile input, slow clients);
//  3. the server-side suite again on a real PostgreSQL (TEST_DATABASE_URL, default the local one);
//  4. the browser tests in Chromium, when the web app defines them;
//  5. the Docker driver against a real Docker Engine in Swarm mode, set up here when none answers.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, openSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { postgresAnswers } from './postgres-answers.mjs';

const root = join(import.meta.dirname, '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const pgUrl = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const failures = [];
const reports = mkdtempSync(join(tmpdir(), 'nodeharbor-test-reports-'));
const timings = [];
const started = Date.now();

function step(name, cmd, args, env = {}) {
  console.log(`\n=== ${name} ===`);
  const t0 = Date.now();
  const r = spawnSync(cmd, args, { cwd: root, stdio: 'inherit', env: { ...process.env, NH_REPORT_DIR: reports, NH_REPORT_NAME: name, ...env } });
  timings.push({ name, seconds: (Date.now() - t0) / 1000, ok: r.status === 0 });
  if (r.status !== 0) failures.push(name);
}
const json = (name) => ['--reporter=default', '--reporter=json', `--outputFile.json=${join(reports, `${name}.json`)}`];

step('unit and API tests on PGlite', 'npx', ['vitest', 'run', ...json('pglite')]);
step('whole-process test: a fresh clone', 'npx', ['vitest', 'run', '--config', 'vitest.slow.config.ts', ...json('slow')]);
step('fault tests', 'npm', ['run', '--silent', 'test:faults']);

if (await postgresAnswers(pgUrl)) {
  step('server tests on PostgreSQL', 'npx', ['vitest', 'run', 'test/', ...json('postgres')], { TEST_DB: 'postgres', TEST_DATABASE_URL: pgUrl });
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
      console.error("\nThe browser tests need Debian's Chromium: run `sudo apt-get install -y chromium`.");
      failures.push('browser tests (no Chromium)');
    }
  }
  if (existsSync('/usr/bin/chromium')) step('browser tests in Chromium', 'npm', ['run', '--silent', 'test:e2e', '--', ...json('browser')]);
}

// A real Docker Engine in Swarm mode, as the Docker driver needs: installed from Debian's packages
// and started with the storage driver these machines support when none answers (as root). Last,
// after the browser tests: a Swarm's tasks add and remove network interfaces, which Chromium takes
// for a change of network (ERR_NETWORK_CHANGED) that fails a page's requests.
const sh = (cmd) => spawnSync('sh', ['-c', cmd], { stdio: 'ignore' }).status === 0;
const engineAnswers = () => sh('docker info >/dev/null 2>&1');
async function dockerReady() {
  const missing = [];
  if (!engineAnswers() && !sh('command -v dockerd && command -v docker')) missing.push('docker.io');
  // The tests' node image is a busybox-static root file system (test/docker/node-image.ts).
  if (!sh('dpkg -s busybox-static')) missing.push('busybox-static');
  if (missing.length && process.getuid?.() === 0) {
    step(`install ${missing.join(' and ')}`, 'sh', [
      '-c',
      `apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq ${missing.join(' ')} >/dev/null`,
    ]);
  } else if (missing.length) {
    console.error(`\nThe Docker tests need ${missing.join(' and ')}: run \`sudo apt-get install -y ${missing.join(' ')}\`.`);
    return false;
  }
  if (!engineAnswers()) {
    if (process.getuid?.() !== 0) {
      console.error('\nThe Docker tests need a Docker Engine: start one (dockerd), or run npm test as root to have it started.');
      return false;
    }
    const log = join(tmpdir(), 'nodeharbor-dockerd.log');
    const out = openSync(log, 'a');
    spawn('dockerd', ['--storage-driver=vfs'], { detached: true, stdio: ['ignore', out, out] }).unref();
    console.log(`\nStarted dockerd --storage-driver=vfs (its log: ${log}).`);
    for (let i = 0; i < 120 && !engineAnswers(); i++) await new Promise((r) => setTimeout(r, 500));
    if (!engineAnswers()) {
      console.error(`\ndockerd did not answer: see ${log}`);
      return false;
    }
  }
  if (!sh(`[ "$(docker info --format '{{.Swarm.LocalNodeState}}')" = active ]`)) {
    step('make the engine a Swarm manager', 'docker', ['swarm', 'init', '--advertise-addr', '127.0.0.1']);
  }
  return sh(`[ "$(docker info --format '{{.Swarm.ControlAvailable}}')" = true ]`);
}
if (await dockerReady()) {
  // No registry can be reached: the node image is built here, offline (the tests build it too when it is missing).
  step('build the test node image offline', 'npx', ['tsx', 'test/docker/node-image.ts']);
  step('Docker driver against a real Swarm', 'npx', ['vitest', 'run', '--config', 'vitest.docker.config.ts', ...json('docker')]);
} else failures.push('Docker driver tests (no Docker Engine in Swarm mode)');

console.log('\n=== Summary ===');
for (const t of timings) console.log(`${t.ok ? 'ok  ' : 'FAIL'} ${t.seconds.toFixed(0).padStart(6)} s  ${t.name}`);
console.log(`     ${((Date.now() - started) / 1000).toFixed(0).padStart(6)} s  in all`);
for (const f of readdirSync(reports).sort()) {
  const r = JSON.parse(readFileSync(join(reports, f), 'utf8'));
  console.log(
    `${f.replace(/\.json$/, '').padEnd(16)} files ${r.testResults.length}  tests ${r.numTotalTests}: ${r.numPassedTests} passed, ${r.numFailedTests} failed, ${r.numPendingTests + r.numTodoTests} skipped`,
  );
}
if (failures.length) {
  console.error(`\nFailed: ${failures.join('; ')}`);
  process.exit(1);
}
console.log('\nAll test steps passed.');
