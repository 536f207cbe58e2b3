// npm test: the whole suite, as passes in two lanes that run at the same time.
//  - the server: unit and API tests on PGlite; the server-side suite again on a real PostgreSQL
//    (TEST_DATABASE_URL, default the local one); the fault tests on PGlite;
//  - the browser tests in Chromium, then the Docker driver against a real Docker Engine in Swarm
//    mode, then the fault tests on PostgreSQL, then the whole-process test of `npm install && npm
//    start` in a fresh clone. Docker after the browser tests, never beside them:
//    a Swarm's tasks add and remove network interfaces, which Chromium takes for a change of
//    network (ERR_NETWORK_CHANGED).
// Every pass at once took about 885 s instead of 1 029, but on 2 cores the load reached 15, and tests
// whose requests have deadlines failed by them (README, Testing).
// What the passes need is set up first, when missing (as root): Chromium, a Docker Engine made a
// Swarm manager, and the local test PostgreSQL (scripts/postgres-setup.sh, as .ci/run). Each pass
// writes to a log of its own, printed whole when it ends; a table of every pass's wall and CPU time
// and test counts closes the run.
import { spawn, spawnSync } from 'node:child_process';
import { createWriteStream, existsSync, mkdtempSync, openSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { postgresAnswers } from './postgres-answers.mjs';

const root = join(import.meta.dirname, '..');
const pgUrl = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const runDir = mkdtempSync(join(tmpdir(), 'nodeharbor-test-run-'));
const started = Date.now();
const results = [];
const problems = [];
/** What the summary must say beside the table: a pass run again, and why. */
const notices = [];
const isRoot = process.getuid?.() === 0;
const sh = (cmd) => spawnSync('sh', ['-c', cmd], { stdio: 'ignore' }).status === 0;
const seconds = (ms) => `${Math.round(ms / 1000)} s`;

/** vitest's JSON report for the pass, for the table: a file in the run's folder. */
const report = (id) => ['--reporter=default', '--reporter=json', `--outputFile.json=${join(runDir, `${id}.json`)}`];

/**
 * The CPU time the pass's processes took, in seconds, from bash's `times` (its children's user and
 * system time): every process the pass started and waited for, not the servers it used (the test
 * PostgreSQL, the Docker Engine).
 */
function cpuSeconds(file) {
  if (!existsSync(file)) return undefined;
  const children = readFileSync(file, 'utf8').trim().split('\n')[1] ?? '';
  return [...children.matchAll(/(\d+)m([\d.]+)s/g)].reduce((sum, [, m, sec]) => sum + Number(m) * 60 + Number(sec), 0);
}

/** Runs one pass, its output to its own log, and prints that log whole when it ends. */
function pass(id, name, cmd, args, env = {}) {
  const log = join(runDir, `${id}.log`);
  const times = join(runDir, `${id}.times`);
  const out = createWriteStream(log);
  const t0 = Date.now();
  return new Promise((resolve) => {
    const child = spawn('bash', ['-c', '"$@"; status=$?; times > "$NH_TIMES"; exit $status', 'pass', cmd, ...args], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...env, NH_TIMES: times },
    });
    child.stdout.pipe(out, { end: false });
    child.stderr.pipe(out, { end: false });
    child.on('close', (code) => {
      out.end(() => {
        const ok = code === 0;
        results.push({ id, name, ms: Date.now() - t0, cpu: cpuSeconds(times), ok });
        console.log(`\n=== ${name}: ${ok ? 'passed' : 'FAILED'} in ${seconds(Date.now() - t0)} (${log}) ===`);
        process.stdout.write(readFileSync(log));
        resolve(ok);
      });
    });
  });
}

/** A lane runs its passes one after another; lanes run at the same time. */
async function lane(...passes) {
  for (const p of passes) await p();
}

function aptInstall(packages) {
  if (!packages.length) return true;
  if (!isRoot) {
    console.error(`\nThe tests need ${packages.join(' and ')}: run \`sudo apt-get install -y ${packages.join(' ')}\`.`);
    return false;
  }
  console.log(`Installing ${packages.join(', ')}…`);
  return sh(`apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq ${packages.join(' ')} >/dev/null`);
}

// ---- What the passes need -------------------------------------------------------------------
const engineAnswers = () => sh('docker info >/dev/null 2>&1');
const missing = [];
// The browser tests' Chromium: Debian's headless shell (docs/decisions/032-browser-tests-in-the-headless-shell.md).
const CHROMIUM = '/usr/bin/chromium-headless-shell';
if (!existsSync(CHROMIUM)) missing.push('chromium-headless-shell');
if (!engineAnswers() && !sh('command -v dockerd && command -v docker')) missing.push('docker.io');
// The Docker tests' node image is a busybox-static root file system (test/docker/node-image.ts).
if (!sh('dpkg -s busybox-static')) missing.push('busybox-static');
// The private registry the registry-credentials test pushes to and pulls from (Debian's docker-registry).
if (!sh('command -v docker-registry')) missing.push('docker-registry');
// The start-up test lists the listening sockets with ss (a fresh install listens on loopback only).
if (!sh('command -v ss')) missing.push('iproute2');
const installed = aptInstall(missing);
const haveChromium = existsSync(CHROMIUM);
if (!haveChromium) problems.push("browser tests (no Chromium: Debian's chromium-headless-shell package)");

/** A Docker Engine in Swarm mode, started with the storage driver these machines support when none answers (as root). */
async function dockerReady() {
  if (!installed && !engineAnswers()) return false;
  if (!engineAnswers()) {
    if (!isRoot) {
      console.error('\nThe Docker tests need a Docker Engine: start one (dockerd), or run npm test as root to have it started.');
      return false;
    }
    const log = join(tmpdir(), 'nodeharbor-dockerd.log');
    const out = openSync(log, 'a');
    spawn('dockerd', ['--storage-driver=vfs'], { detached: true, stdio: ['ignore', out, out] }).unref();
    console.log(`Started dockerd --storage-driver=vfs (its log: ${log}).`);
    const deadline = Date.now() + 60_000;
    while (!engineAnswers() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 500));
    if (!engineAnswers()) {
      console.error(`\ndockerd did not answer: see ${log}`);
      return false;
    }
  }
  if (!sh(`[ "$(docker info --format '{{.Swarm.LocalNodeState}}')" = active ]`)) sh('docker swarm init --advertise-addr 127.0.0.1');
  return sh(`[ "$(docker info --format '{{.Swarm.ControlAvailable}}')" = true ]`);
}
// Before any browser starts: the engine and the Swarm add network interfaces as they start.
const haveDocker = await dockerReady();
if (!haveDocker) problems.push('Docker driver tests (no Docker Engine in Swarm mode)');
const defaultPostgres = !process.env.TEST_DATABASE_URL;
// The local test PostgreSQL, installed and started as .ci/run does, when none answers (as root).
if (defaultPostgres && isRoot && !(await postgresAnswers(pgUrl))) spawnSync('bash', ['scripts/postgres-setup.sh'], { cwd: root, stdio: 'inherit' });
const havePostgres = await postgresAnswers(pgUrl);
if (!havePostgres) {
  console.error(`\nNo PostgreSQL answers at ${pgUrl}: the PostgreSQL passes cannot run.`);
  console.error('Start one (e.g. apt-get install postgresql) or set TEST_DATABASE_URL; .ci/run does this for you.');
  problems.push('PostgreSQL passes (no database)');
}
console.log(`Set up in ${seconds(Date.now() - started)}; the passes' logs: ${runDir}`);

// ---- The passes -------------------------------------------------------------------------------
const vitest = (id, name, args, env) => () => pass(id, name, 'npx', ['vitest', 'run', ...args, ...report(id)], env);
const pg = { TEST_DB: 'postgres', TEST_DATABASE_URL: pgUrl };

const browser = haveChromium ? [vitest('browser', 'browser tests in Chromium', ['--config', 'vitest.e2e.config.ts'])] : [];
const docker = !haveDocker
  ? []
  : [
      // No registry can be reached: the node image is built here, offline (the tests build it too when it is missing).
      () => pass('docker-image', 'the test node image, built offline', 'npx', ['tsx', 'test/docker/node-image.ts']),
      // NodeHarbor's own image beside the Swarm's files: its build is most of the Docker tests' CPU,
      // and the Swarm's files mostly wait on the engine. It makes plain containers of its run's own
      // names and no Swarm object.
      () => dockerPasses(),
    ];

/**
 * The Swarm's files and NodeHarbor's image side by side. Debian's engine (20.10) can die of a
 * swarmkit race while services are removed (a nil task in SetServiceTasksRemove; moby/swarmkit#3216,
 * fixed upstream in #3222): when a pass failed and the engine no longer answers, the engine is
 * started again and the failed passes run once more, said in the summary. A failure with the engine
 * alive stands.
 */
async function dockerPasses() {
  const passes = [
    ['docker', 'Docker driver against a real Swarm', ['--config', 'vitest.docker.config.ts', '--exclude', 'test/docker/image.test.ts']],
    ['docker-app-image', "NodeHarbor's image, built and run", ['--config', 'vitest.docker.config.ts', 'test/docker/image.test.ts']],
  ];
  const ok = await Promise.all(passes.map(([id, name, args]) => vitest(id, name, args)()));
  if (ok.every(Boolean) || engineAnswers()) return;
  notices.push('The Docker Engine stopped answering during the Docker passes: it was started again, and the passes that failed ran once more.');
  console.log('\n=== The Docker Engine stopped answering: starting it again, and running the failed Docker passes once more ===');
  if (!(await dockerReady())) return;
  // What the passes cut short could not remove: the nodes' services and secrets, and the image test's containers and images.
  sh('docker service ls -q --filter label=nodeharbor.service_id | xargs -r docker service rm');
  sh('docker secret ls -q --filter label=nodeharbor.service_id | xargs -r docker secret rm');
  sh('docker ps -aq --filter name=nodeharbor-image-test- | xargs -r docker rm -f -v');
  sh("docker images -q --filter reference='nodeharbor-test-base:offline-*' --filter reference='nodeharbor-test/app:*' | xargs -r docker rmi -f");
  for (const r of results.filter((r) => !r.ok && passes.some(([id]) => id === r.id))) r.superseded = true;
  await Promise.all(passes.filter((_, i) => !ok[i]).map(([id, name, args]) => vitest(`${id}-again`, `${name}, run again`, args)()));
}
// The fault tests on PostgreSQL close the browser's lane and the fresh clone the server's: the
// lanes' lengths move as tests are added, and at 15f33b2 (CI, 2 cores) the server's lane took
// 1 160 s without the fresh clone, the browser's 1 354 s with it (the clone: 55 s).
const lanes = [
  [
    vitest('pglite', 'unit and API tests on PGlite', []),
    ...(havePostgres ? [vitest('postgres', 'server tests on PostgreSQL', ['test/'], pg)] : []),
    vitest('faults-pglite', 'fault tests on PGlite', ['--config', 'vitest.faults.config.ts'], { TEST_DB: 'pglite' }),
    vitest('fresh-clone', 'whole-process test: a fresh clone', ['--config', 'vitest.slow.config.ts']),
  ],
  [...browser, ...docker, ...(havePostgres ? [vitest('faults-postgres', 'fault tests on PostgreSQL', ['--config', 'vitest.faults.config.ts'], pg)] : [])],
];
await Promise.all(lanes.map((passes) => lane(...passes)));

// ---- The table --------------------------------------------------------------------------------
const total = { passed: 0, failed: 0, skipped: 0 };
/** The pass's test counts, added to the run's totals unless the pass ran again. */
const counts = (id, counted = true) => {
  const file = join(runDir, `${id}.json`);
  if (!existsSync(file)) return '';
  const r = JSON.parse(readFileSync(file, 'utf8'));
  const skipped = r.numPendingTests + r.numTodoTests;
  if (counted) {
    total.passed += r.numPassedTests;
    total.failed += r.numFailedTests;
    total.skipped += skipped;
  }
  return `${r.testResults.length} files, ${r.numTotalTests} tests: ${r.numPassedTests} passed, ${r.numFailedTests} failed, ${skipped} skipped`;
};
/** Each failed test of a pass, or a file that failed as a whole, with the first line of its message. */
function failedTests(id) {
  const file = join(runDir, `${id}.json`);
  if (!existsSync(file)) return [];
  const firstLine = (text = '') => text.trim().split('\n')[0].slice(0, 300);
  return JSON.parse(readFileSync(file, 'utf8')).testResults.flatMap((f) => {
    const where = relative(root, f.name);
    const tests = f.assertionResults.filter((t) => t.status === 'failed');
    if (!tests.length) return f.status === 'failed' ? [`${where}: ${firstLine(f.message)}`] : [];
    return tests.map((t) => `${where} › ${t.fullName}: ${firstLine(t.failureMessages?.[0])}`);
  });
}
console.log('\n=== Summary ===');
console.log('| pass | result | wall time | CPU time | tests |\n| --- | --- | --- | --- | --- |');
for (const r of results) {
  console.log(
    `| ${r.name} | ${r.ok ? 'passed' : r.superseded ? 'failed, run again' : 'FAILED'} | ${seconds(r.ms)} | ${r.cpu === undefined ? '' : seconds(r.cpu * 1000)} | ${counts(r.id, !r.superseded)} |`,
  );
}
const cpu = results.reduce((sum, r) => sum + (r.cpu ?? 0), 0);
console.log(`| all, from setup to the end | | ${seconds(Date.now() - started)} | ${seconds(cpu * 1000)} | |`);
console.log(`\nTests: ${total.passed} passed, ${total.failed} failed, ${total.skipped} skipped`);
for (const n of notices) console.log(`\n${n}`);
const failed = [...results.filter((r) => !r.ok && !r.superseded).map((r) => r.name), ...problems];
// Which tests failed, and the first line of why, so that the end of a long run's output says it.
for (const r of results.filter((r) => !r.ok && !r.superseded)) {
  for (const line of failedTests(r.id)) console.error(`  ${r.name}: ${line}`);
}
if (failed.length) {
  console.error(`\nFailed: ${failed.join('; ')}`);
  process.exit(1);
}
console.log('\nAll test passes passed.');
