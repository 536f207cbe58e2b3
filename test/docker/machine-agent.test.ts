import { execFileSync, spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderUserData, type UserDataOptions } from '../../src/server/provisioning/machines/user-data';
import { startFunctionsFake, type FakeMachine, type FunctionsFake } from '../machines/functions-fake';
import { GALA_STANDIN_DIR, GALA_TARBALL_NAME, galaKey, galaNodeTarball, UNKNOWN_GALA_KEY } from '../machines/gala-node-standin';
import { importMachineImage, MACHINE_IMAGE, USER_DATA_PATH } from '../machines/machine-image';
import { until } from '../helpers/wait';

// The Town Star machine's boot script (nodes/townstar-machine/user-data.sh, rendered by
// renderUserData and run unchanged) and its agent (nodes/agent/), on a container that plays a
// fresh Debian cloud server (test/machines/machine-image.ts), against a fake of the agent's three
// functions (test/machines/functions-fake.ts). Here, not in test/machines/, because it needs a
// Docker Engine: test/docker/ is the Docker pass's folder, and the plain pass leaves it out.
//
// The containers share the host's network: the agent reaches the fake on 127.0.0.1, the loopback
// address it allows plain http on (the bridge's gateway would need NODEHARBOR_ALLOW_HTTP=1, which
// the boot script does not write).

const RUN = randomBytes(4).toString('hex');
const LABEL = 'nodeharbor.test=machine-agent';
const AGENT_LOG = '/var/log/nodeharbor-agent.log';
const BOOT_LOG = '/var/log/nodeharbor-boot.log';
const UNIT_LOG = '/var/log/systemctl-standin/nodeharbor-agent.service.log';
const UNIT_EXIT = '/run/systemctl-standin/nodeharbor-agent.service.exit';
const BOOT_FINISHED = '/var/lib/cloud/instance/boot-finished';

let fake: FunctionsFake;
let sha256: string;
const work = mkdtempSync(join(tmpdir(), 'nh-machine-agent-'));
const containers: string[] = [];

const docker = (args: string[]) => execFileSync('docker', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();

/** A file of the machine, '' when it does not exist. */
const read = (name: string, path: string) => spawnSync('docker', ['exec', name, 'cat', path], { encoding: 'utf8' }).stdout;
const lines = (text: string) => text.split('\n').filter(Boolean);

function userData(m: FakeMachine, overrides: Partial<UserDataOptions> = {}): string {
  return renderUserData({
    url: fake.url,
    apikey: fake.publishableKey,
    bootstrapToken: m.bootstrapToken,
    downloadUrl: `${fake.url}/DownloadLinuxNode`,
    sha256,
    eulaAccepted: true,
    ...overrides,
  });
}

/** Boots a machine with this user data, as a provider would: the script in place, then the machine started. */
function boot(script: string, shell: 'busybox' | 'dash' = 'busybox'): string {
  const name = `nh-test-machine-${RUN}-${containers.length}`;
  containers.push(name);
  const file = join(work, `${name}.sh`);
  writeFileSync(file, script, { mode: 0o700 });
  docker(['create', '--name', name, '--label', LABEL, '--network', 'host', '-e', `MACHINE_SH=${shell}`, MACHINE_IMAGE]);
  docker(['cp', file, `${name}:${USER_DATA_PATH}`]);
  docker(['start', name]);
  return name;
}

/** The boot script's exit code, once it has ended. */
const bootEnded = (name: string) => until(`${name}'s user data to end`, () => read(name, BOOT_FINISHED).trim() || undefined, 60_000, 100);

/** Every place a secret must not be: the requests the agent sent, its logs, the boot log, curl's and jq's command lines. */
function leaks(name: string, secret: string): string[] {
  const found: string[] = [];
  fake.requests.forEach((r, i) => {
    if (r.body.includes(secret) || JSON.stringify(r.headers).includes(secret)) found.push(`request ${i} (${r.path})`);
  });
  for (const path of [AGENT_LOG, BOOT_LOG, UNIT_LOG, '/var/log/cloud-init-output.log', '/var/log/argv/curl.log', '/var/log/argv/jq.log']) {
    if (read(name, path).includes(secret)) found.push(path);
  }
  return found;
}

/** The machine's files holding `secret`, apart from /proc, /sys and /dev. */
const filesHolding = (name: string, secret: string) =>
  lines(spawnSync('docker', ['exec', name, 'grep', '-rlF', '--', secret, '/etc', '/var', '/usr/local', '/root', '/tmp', '/run'], { encoding: 'utf8' }).stdout);

const lastBeat = (m: FakeMachine) => m.heartbeats.at(-1);

beforeAll(() => {
  // Containers a run that was killed left behind: ours by their label.
  const left = docker(['ps', '-aq', '--filter', `label=${LABEL}`]);
  if (left) docker(['rm', '-f', ...left.split('\n')]);
  importMachineImage();
}, 300_000);

beforeAll(async () => {
  const tarball = galaNodeTarball();
  sha256 = createHash('sha256').update(tarball).digest('hex');
  fake = await startFunctionsFake({ heartbeatSeconds: 1, files: { [`/downloads/${GALA_TARBALL_NAME}`]: tarball } });
});

afterAll(async () => {
  if (containers.length) spawnSync('docker', ['rm', '-f', ...containers], { stdio: 'ignore' });
  await fake?.close();
  rmSync(work, { recursive: true, force: true });
});

// Debian's /bin/sh is dash; the agent must run under busybox sh as well.
describe.each([
  { shell: 'busybox' as const, exe: '/bin/busybox' },
  { shell: 'dash' as const, exe: '/usr/bin/dash' },
])('a Town Star machine with $shell as /bin/sh, that boots and runs its node', ({ shell, exe }) => {
  let m: FakeMachine;
  let name: string;
  let script: string;
  const key = galaKey();

  it('installs, claims its key once (after NodeHarbor was down), sets gala-node up and reports it running', async () => {
    m = fake.addMachine({ apiKey: key, failFirst: [503] });
    script = userData(m);
    name = boot(script, shell);
    expect(await bootEnded(name)).toBe('0');
    // The agent's unit runs under that shell.
    const agentExe =
      'unit=$(cat /run/systemctl-standin/nodeharbor-agent.service.pid); set -- $(cat /proc/$unit/task/$unit/children); [ -z "$1" ] || readlink /proc/$1/exe';
    expect(await until('the agent to run', () => docker(['exec', name, 'sh', '-c', agentExe]) || undefined)).toBe(exe);
    await until('three heartbeats saying running', () => m.heartbeats.filter((b) => b.state === 'running').length >= 3, 90_000);

    const bootstraps = fake.requests.filter((r) => r.path === '/functions/v1/node-bootstrap' && r.body.includes(m.bootstrapToken));
    expect(bootstraps.map((r) => r.status)).toEqual([503, 200]);
    expect(m.claims).toBe(1);
    expect(JSON.parse(bootstraps[1]!.body)).toEqual({ token: m.bootstrapToken });

    // What the boot did: the packages, Gala's installer answered yes, the agent started by its unit.
    expect(read(name, '/var/log/apt-get-standin.log')).toContain('install curl jq ca-certificates docker.io DEBIAN_FRONTEND=noninteractive');
    expect(read(name, `${GALA_STANDIN_DIR}/installed`)).not.toBe('');
    expect(read(name, BOOT_LOG)).toContain("Gala's node software has the expected SHA-256");

    // The key reached gala-node, and the steps ran in the protocol's order.
    expect(read(name, `${GALA_STANDIN_DIR}/api-key`).trim()).toBe(key);
    expect(read(name, `${GALA_STANDIN_DIR}/name`).trim()).toBe(`nh-${m.serviceId.slice(0, 12)}`);
    expect(read(name, `${GALA_STANDIN_DIR}/workloads`).trim()).toBe('townstar');
    const ran = lines(read(name, `${GALA_STANDIN_DIR}/commands.log`)).filter((c) => !c.startsWith('status'));
    expect(ran).toEqual(['config api-key', 'licenses ', 'workload add', `rename nh-${m.serviceId.slice(0, 12)}`, 'start ']);

    // The token is spent: gone from the env file; the agent's own is a header file, both 0600.
    expect(read(name, '/etc/nodeharbor/agent.env')).not.toContain('NODEHARBOR_BOOTSTRAP_TOKEN');
    expect(read(name, '/etc/nodeharbor/agent.env')).toContain(`NODEHARBOR_URL=${fake.url}\n`);
    expect(read(name, '/etc/nodeharbor/agent-token')).toBe(`X-Agent-Token: ${m.agentToken}\n`);
    expect(docker(['exec', name, 'stat', '-c', '%a', '/etc/nodeharbor/agent.env', '/etc/nodeharbor/agent-token'])).toBe('600\n600');

    const beat = lastBeat(m)!;
    expect(Object.keys(beat).sort()).toEqual(['logs', 'state', 'status']);
    expect(beat.status).toContain('Status: running');
    expect(beat.logs.some((l) => l.includes('bootstrap: claimed'))).toBe(true);
    // gala-node echoed the key: the agent's log has it redacted.
    expect(read(name, AGENT_LOG)).toContain('gala-node config api-key: Checking API key [redacted]');
  });

  it('never puts the key or a token anywhere but where it must be', () => {
    expect(script).not.toContain(key);
    expect(leaks(name, key)).toEqual([]);
    // Gala's CLI keeps the key on its machine; nothing of the agent's does.
    expect(filesHolding(name, key)).toEqual([`${GALA_STANDIN_DIR}/api-key`]);
    // The tokens travel in bodies and headers only, never on a command line.
    const argv = read(name, '/var/log/argv/curl.log') + read(name, '/var/log/argv/jq.log');
    expect(argv).toContain('/functions/v1/node-heartbeat');
    expect(argv).not.toContain(m.bootstrapToken);
    expect(argv).not.toContain(m.agentToken!);
  });

  it('answers new-key: fetches the key, configures it, stops and starts the node', async () => {
    const next = galaKey();
    const before = lines(read(name, `${GALA_STANDIN_DIR}/commands.log`)).length;
    m.pendingKey = next;
    m.commands.push('new-key');
    await until('gala-node to have the new key', () => read(name, `${GALA_STANDIN_DIR}/api-key`).trim() === next);
    const count = m.heartbeats.length;
    await until('a heartbeat after the new key saying running', () => m.heartbeats.slice(count).some((b) => b.state === 'running'));
    expect(m.keyCalls).toBe(1);
    const ran = lines(read(name, `${GALA_STANDIN_DIR}/commands.log`))
      .slice(before)
      .filter((c) => !c.startsWith('status'));
    expect(ran).toEqual(['config api-key', 'stop ', 'start ']);
    expect(leaks(name, next)).toEqual([]);
    expect(leaks(name, key)).toEqual([]);
  });

  it('answers stop, then start', async () => {
    m.commands.push('stop');
    await until('a heartbeat saying stopped', () => lastBeat(m)?.state === 'stopped');
    expect(lastBeat(m)!.status).toContain('Status: stopped');
    m.commands.push('start');
    await until('a heartbeat saying running again', () => lastBeat(m)?.state === 'running');
  });

  it('keeps every field within the protocol bounds', async () => {
    // 80 lines of 700 characters, printed by status, stop and start from now on.
    const noise = Array.from({ length: 80 }, (_, i) => `${String(i).padStart(3, '0')} ${'x'.repeat(696)}`).join('\n');
    docker(['exec', name, 'sh', '-c', `printf '%s\\n' "$1" > ${GALA_STANDIN_DIR}/noise`, 'sh', noise]);
    const count = m.heartbeats.length;
    m.commands.push('restart');
    const beat = await until('a heartbeat with the noise in its logs', () => m.heartbeats.slice(count).find((b) => b.logs.some((l) => l.includes('xxxx'))));
    expect(beat.state).toBe('running');
    expect(beat.status.length).toBeGreaterThan(4000);
    expect(beat.status.length).toBeLessThanOrEqual(4096);
    expect(beat.logs).toHaveLength(50);
    expect(Math.max(...beat.logs.map((l) => l.length))).toBe(500);
    // The fake refuses what the protocol does: every heartbeat got its 200.
    expect(fake.requests.filter((r) => r.path === '/functions/v1/node-heartbeat' && r.status !== 200)).toEqual([]);
  });
});

describe('a machine whose key gala-node refuses', () => {
  it("reports refused with gala-node's own words, then sets up with a new key", async () => {
    const m = fake.addMachine({ apiKey: UNKNOWN_GALA_KEY });
    const name = boot(userData(m), 'dash');
    const refused = await until('a heartbeat saying refused', () => m.heartbeats.find((b) => b.state === 'refused'), 90_000);
    expect(refused.error).toBe('Error: Gala does not know the API key [redacted] (gala-node stand-in)');
    await until('a second heartbeat saying refused', () => m.heartbeats.filter((b) => b.state === 'refused').length >= 2);
    expect(lines(read(name, `${GALA_STANDIN_DIR}/commands.log`)).filter((c) => !c.startsWith('status'))).toEqual(['config api-key']);
    expect(leaks(name, UNKNOWN_GALA_KEY)).toEqual([]);

    const good = galaKey();
    m.pendingKey = good;
    m.commands.push('new-key');
    await until('a heartbeat saying running', () => lastBeat(m)?.state === 'running');
    expect(lastBeat(m)!.error).toBeUndefined();
    expect(lines(read(name, `${GALA_STANDIN_DIR}/commands.log`)).filter((c) => !c.startsWith('status'))).toEqual([
      'config api-key',
      'config api-key',
      'licenses ',
      'workload add',
      `rename nh-${m.serviceId.slice(0, 12)}`,
      'start ',
    ]);
    expect(leaks(name, good)).toEqual([]);
  });
});

describe('a machine that must not install', () => {
  const bootstraps = (m: FakeMachine) => fake.requests.filter((r) => r.path === '/functions/v1/node-bootstrap' && r.body.includes(m.bootstrapToken));

  it('stops with one line when the download is not what the SHA-256 says', async () => {
    const m = fake.addMachine({ apiKey: galaKey() });
    const name = boot(userData(m, { sha256: '0'.repeat(64) }));
    expect(await bootEnded(name)).toBe('1');
    const log = lines(read(name, BOOT_LOG));
    expect(log.filter((l) => l.includes('STOPPED'))).toHaveLength(1);
    expect(log.at(-1)).toMatch(new RegExp(`STOPPED: Gala's node software has SHA-256 ${sha256}, not the expected 0{64}: it is not installed$`));
    expect(read(name, '/usr/local/bin/gala-node')).toBe('');
    expect(read(name, '/etc/nodeharbor/agent.env')).toBe('');
    expect(bootstraps(m)).toEqual([]);
    // NodeHarbor is told, so that the install fails now rather than at its timeout.
    expect(m.bootFailures).toEqual([`Gala's node software has SHA-256 ${sha256}, not the expected ${'0'.repeat(64)}: it is not installed`]);
  });

  it("stops with one line when the operator has not accepted Gala's EULA", async () => {
    const m = fake.addMachine({ apiKey: galaKey() });
    const downloads = fake.requests.filter((r) => r.method === 'GET').length;
    const name = boot(userData(m, { eulaAccepted: false }));
    expect(await bootEnded(name)).toBe('1');
    const log = lines(read(name, BOOT_LOG));
    expect(log).toHaveLength(1);
    expect(log[0]).toMatch(/STOPPED: Gala's EULA is not accepted \(GALA_EULA_ACCEPTED\): Gala's node software is not installed$/);
    expect(fake.requests.filter((r) => r.method === 'GET')).toHaveLength(downloads);
    expect(bootstraps(m)).toEqual([]);
    expect(m.bootFailures).toEqual(["Gala's EULA is not accepted (GALA_EULA_ACCEPTED): Gala's node software is not installed"]);
  });

  it('has an agent that exits with one line when NodeHarbor refuses its bootstrap token', async () => {
    const m = fake.addMachine({ apiKey: galaKey(), refuse: true });
    const name = boot(userData(m));
    expect(await bootEnded(name)).toBe('0');
    const code = await until('the agent to exit', () => read(name, UNIT_EXIT).trim() || undefined);
    expect(code).toBe('3');
    const log = lines(read(name, AGENT_LOG));
    expect(log).toHaveLength(1);
    expect(log[0]).toMatch(/bootstrap: NodeHarbor refused the bootstrap token \(HTTP 401: This bootstrap token is not valid\); the agent stops$/);
    expect(bootstraps(m)).toHaveLength(1);
    expect(read(name, `${GALA_STANDIN_DIR}/commands.log`)).toBe('');
  });
});
