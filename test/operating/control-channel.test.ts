import { spawn } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commands } from '../../src/server/cli/commands';
import { runInServer, runInServerOrLock } from '../../src/server/control/control-client';
import { startControlServer, type ControlServer } from '../../src/server/control/control-server';
import { controlSocketPath, MAX_REQUEST_BYTES } from '../../src/server/control/protocol';
import { createLogger } from '../../src/server/http/logger';
import { ROOT } from '../../src/server/paths';
import { startTestServer, type TestServer } from '../helpers/server';

let s: TestServer;
let control: ControlServer;
let dataDir: string;

/** Sends raw bytes to the socket, as any local process could, and returns every line of the answer. */
function raw(bytes: string | Buffer): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const socket = connect(control.path);
    let out = '';
    socket.on('data', (d: Buffer) => (out += d.toString()));
    socket.on('error', reject);
    socket.on('close', () => resolve(out.split('\n').filter(Boolean)));
    socket.end(bytes);
  });
}

/** Runs a command through the channel as the CLI does; what it printed, on which stream, and its exit code. */
async function run(command: string, values: Record<string, string | boolean> = {}) {
  const out = { stdout: '', stderr: '' };
  const code = await runInServer(dataDir, { command, values }, { stdout: (t) => (out.stdout += t), stderr: (t) => (out.stderr += t) });
  return { code, ...out };
}

beforeAll(async () => {
  s = await startTestServer({ RATE_LIMITS_ENABLED: 'false' });
  dataDir = s.deps.config.dataDir;
  control = (await startControlServer(s.deps, commands))!;
});
afterAll(async () => {
  await control.close();
  await s.stop();
});

describe('the control socket', () => {
  it('is in DATA_DIR, a socket only its owner may open', () => {
    expect(control.path).toBe(join(dataDir, 'control.sock'));
    const stat = lstatSync(control.path);
    expect(stat.isSocket()).toBe(true);
    expect(stat.mode & 0o777).toBe(0o600);
  });

  it("runs a command with the server's own dependencies and streams what it prints", async () => {
    expect(await run('users:create', { email: 'through@nodeharbor.test', password: 'correct-horse-battery', credits: '5' })).toEqual({
      code: 0,
      stdout: 'Created through@nodeharbor.test\nBalance: $5.00\n',
      stderr: '',
    });
    expect((await run('users:list')).stdout).toContain('through@nodeharbor.test');
    // The same row as the server's own database holds.
    const { rows } = await s.deps.db.query<{ balance: string }>(
      `select balance::text from public.user_credits c join auth.users u on u.id = c.user_id where u.email = 'through@nodeharbor.test'`,
    );
    expect(rows).toEqual([{ balance: '5.00' }]);
  });

  it('takes a backup and restores it, in the server', async () => {
    const file = join(dataDir, 'through.jsonl.gz');
    const taken = await run('backup', { out: file });
    expect(taken).toMatchObject({ code: 0, stderr: '' });
    expect(taken.stdout).toMatch(/^Backed up 1 user\(s\), 0 service\(s\) and 1 ledger row\(s\) \(\$5\.00 in total\)/);
    await run('credits:add', { email: 'through@nodeharbor.test', amount: '1' });
    const refused = await run('restore', { from: file });
    expect(refused).toEqual({
      code: 1,
      stdout: '',
      stderr:
        'This database already holds data (1 user(s), 0 service(s), 2 ledger row(s)): run again with --force to replace all of it.\nNothing was changed.\n',
    });
    const restored = await run('restore', { from: file, force: true });
    expect(restored).toMatchObject({ code: 0, stderr: '' });
    expect(restored.stdout).toMatch(/^Restored 1 user\(s\), 0 service\(s\) and 1 ledger row\(s\) \(\$5\.00 in total\)/m);
    expect((await run('users:list')).stdout).toContain('through@nodeharbor.test');
  });

  it("answers a command's failure with its message and exit code 1, as the CLI prints it", async () => {
    expect(await run('credits:add', { email: 'nobody@nodeharbor.test', amount: '5' })).toEqual({
      code: 1,
      stdout: '',
      stderr: 'No user with the e-mail nobody@nodeharbor.test\n',
    });
  });
});

describe('a hostile or broken request is answered with a reason and runs nothing', () => {
  const users = async () => (await s.deps.db.query('select 1 from auth.users')).rowCount;

  it.each([
    ['an unknown command', { command: 'rm', values: {} }, 'Unknown command "rm".'],
    ["an inherited property's name", { command: 'constructor', values: {} }, 'Unknown command "constructor".'],
    ["an object's prototype", { command: '__proto__', values: {} }, 'Unknown command "__proto__".'],
    ['an option the command does not have', { command: 'users:list', values: { admin: true } }, "Unknown option '--admin' for users:list."],
    ['an inherited option name', { command: 'users:list', values: { toString: 'x' } }, "Unknown option '--toString' for users:list."],
    [
      'a value for a flag',
      { command: 'users:create', values: { email: 'x@nodeharbor.test', password: 'correct-horse-battery', admin: 'yes' } },
      "Option '--admin' of users:create takes no value.",
    ],
    ['a flag for a value', { command: 'users:create', values: { email: true } }, "Option '--email' of users:create takes a value."],
    ['values that are not strings or flags', { command: 'users:list', values: { search: 5 } }, 'The request is not a command with its options.'],
    ['no command', { values: {} }, 'The request is not a command with its options.'],
  ])('%s', async (_name, request, error) => {
    const before = await users();
    expect(await raw(`${JSON.stringify(request)}\n`)).toEqual([JSON.stringify({ exit: 2, error })]);
    expect(await users()).toBe(before);
  });

  it('a line that is not JSON', async () => {
    expect(await raw('users:list --search x\n')).toEqual([JSON.stringify({ exit: 2, error: 'The request is not JSON.' })]);
  });

  it(`a request longer than ${MAX_REQUEST_BYTES} bytes, with or without its newline, and the channel serves on`, async () => {
    const long = JSON.stringify({ command: 'users:list', values: { search: 'x'.repeat(MAX_REQUEST_BYTES) } });
    const answer = [JSON.stringify({ exit: 2, error: `The request is longer than ${MAX_REQUEST_BYTES} bytes.` })];
    expect(await raw(`${long}\n`)).toEqual(answer);
    expect(await raw(Buffer.alloc(MAX_REQUEST_BYTES * 4, 'a'))).toEqual(answer);
    expect((await run('users:list')).code).toBe(0);
  });
});

describe('without a server', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'nh-control-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const none = { stdout: () => {}, stderr: () => {} };

  /** Where the CLI would run users:list: 'lock' (it took the folder, released here) or the holder's exit code. */
  const where = async () => {
    const w = await runInServerOrLock(dir, { command: 'users:list', values: {} }, none);
    if ('exit' in w) return w.exit;
    w.lock.release();
    return 'lock';
  };
  /** A process that listens on the control socket and dies at once, as a SIGKILL leaves it. */
  const killedServer = async () => {
    const path = controlSocketPath(dir);
    const child = spawn(process.execPath, ['-e', `require('net').createServer().listen(${JSON.stringify(path)}, () => process.kill(process.pid, 'SIGKILL'))`]);
    await new Promise((r) => child.on('exit', r));
    expect(lstatSync(path).isSocket()).toBe(true);
  };

  it('the CLI takes the data folder and opens the database itself when no process holds it', async () => {
    expect(await where()).toBe('lock');
  });

  it('a socket left by a killed server is removed, and the CLI takes the folder', async () => {
    await killedServer();
    expect(await where()).toBe('lock');
    expect(existsSync(controlSocketPath(dir))).toBe(false);
  });

  it('a live holder that does not answer (a server still starting): the CLI is refused with its pid, and the socket is left alone', async () => {
    await killedServer();
    const tsx = pathToFileURL(createRequire(join(ROOT, 'package.json')).resolve('tsx')).href;
    const lockModule = pathToFileURL(join(ROOT, 'src/server/db/data-folder-lock.ts')).href;
    const holder = spawn(
      process.execPath,
      [
        '--import',
        tsx,
        '--input-type=module',
        '-e',
        `(await import(${JSON.stringify(lockModule)})).takeLock(${JSON.stringify(dir)}); console.log('took'); setInterval(() => {}, 1000);`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    try {
      await new Promise((r) => holder.stdout!.once('data', r));
      await expect(where()).rejects.toThrow(
        `The data folder is in use by another NodeHarbor process (pid ${holder.pid}). Stop it first, or set DATA_DIR to another folder.`,
      );
      expect(lstatSync(controlSocketPath(dir)).isSocket()).toBe(true);
    } finally {
      holder.kill('SIGKILL');
      await new Promise((r) => holder.once('exit', r));
    }
  });

  it('a server replaces the socket a killed one left, and removes its own when it closes', async () => {
    const path = controlSocketPath(dir);
    expect(existsSync(path)).toBe(true);
    const own = (await startControlServer({ ...s.deps, config: { ...s.deps.config, dataDir: dir } }, commands))!;
    expect(await runInServer(dir, { command: 'users:list', values: {} }, none)).toBe(0);
    await own.close();
    expect(existsSync(path)).toBe(false);
  });

  it('a server that goes away mid-command: the CLI says it may or may not have run, and fails', async () => {
    const path = controlSocketPath(dir);
    const dying = createServer((socket) => socket.once('data', () => socket.end(`${JSON.stringify({ print: 'Created half' })}\n`)));
    await new Promise<void>((r) => dying.listen(path, r));
    const out = { stdout: '', stderr: '' };
    try {
      const code = await runInServer(dir, { command: 'users:list', values: {} }, { stdout: (t) => (out.stdout += t), stderr: (t) => (out.stderr += t) });
      expect({ code, ...out }).toEqual({
        code: 1,
        stdout: 'Created half\n',
        stderr: 'The server closed the control channel before the command finished: it may or may not have run.\n',
      });
    } finally {
      await new Promise((r) => dying.close(r));
      rmSync(path, { force: true });
    }
  });

  it('a DATA_DIR too deep for a socket path runs without the channel, and says so', async () => {
    const deep = join(dir, 'x'.repeat(60), 'y'.repeat(60));
    mkdirSync(deep, { recursive: true });
    const lines: string[] = [];
    const logger = createLogger('warn', (l) => lines.push(l));
    expect(await startControlServer({ ...s.deps, logger, config: { ...s.deps.config, dataDir: deep } }, commands)).toBeUndefined();
    expect(JSON.parse(lines[0]!)).toMatchObject({
      level: 'warn',
      msg: 'no control channel: the DATA_DIR path is too long for a socket; stop the server to run CLI commands',
      path: controlSocketPath(deep),
    });
  });
});
