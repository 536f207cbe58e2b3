import { fork, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, expect, it } from 'vitest';
import { ROOT } from '../paths';
import { lockHolder, takeLock, tryTakeLock } from './data-folder-lock';

const dirs: string[] = [];
const children: ChildProcess[] = [];
afterEach(() => {
  for (const c of children.splice(0)) c.kill('SIGKILL');
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const folder = () => {
  const d = mkdtempSync(join(tmpdir(), 'nh-lock-'));
  dirs.push(d);
  return d;
};
const lockFile = (dir: string) => join(dir, 'nodeharbor.lock');
/** A pid no process has any more. */
let dead: number | undefined;
const deadPid = () => (dead ??= spawnSync(process.execPath, ['-e', '']).pid!);

type Said = { said: 'ready' | 'took' | 'refused' | 'released' | string; pid: number };

/**
 * A process of its own that loads the lock module and, on each `take` message, tries the folder
 * and says how it went; on `release` it gives back what it took. It stays alive in between.
 */
function contender(dir: string) {
  const tsx = pathToFileURL(createRequire(join(ROOT, 'package.json')).resolve('tsx')).href;
  const script = join(dirs[0]!, 'contender.mjs');
  writeFileSync(
    script,
    `const { takeLock } = await import(${JSON.stringify(pathToFileURL(join(ROOT, 'src/server/db/data-folder-lock.ts')).href)});
    let lock;
    process.on('message', (m) => {
      if (m.take !== undefined) {
        // Every contender waits for the same moment, so that their tries overlap.
        while (Date.now() < m.take);
        try { lock = takeLock(${JSON.stringify(dir)}); process.send({ said: 'took', pid: process.pid }); }
        catch (e) { process.send({ said: e.message.includes('in use') ? 'refused' : 'error: ' + e.message, pid: process.pid }); }
      } else if (m.release) { lock?.release(); lock = undefined; process.send({ said: 'released', pid: process.pid }); }
    });
    process.send({ said: 'ready', pid: process.pid });`,
  );
  const c = fork(script, [], { execArgv: ['--import', tsx], stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  children.push(c);
  const next = () => new Promise<Said>((resolve) => c.once('message', (m) => resolve(m as Said)));
  const ready = next();
  return { child: c, ready, ask: (m: object) => (c.send(m), next()) };
}

it('is refused while another live process holds it, and that process is named', async () => {
  const dir = folder();
  const holder = contender(dir);
  await holder.ready;
  expect(await holder.ask({ take: 0 })).toEqual({ said: 'took', pid: holder.child.pid });
  expect(() => takeLock(dir)).toThrow(
    `The data folder is in use by another NodeHarbor process (pid ${holder.child.pid}). Stop it first, or set DATA_DIR to another folder.`,
  );
  expect(tryTakeLock(dir)).toBeUndefined();
  expect(lockHolder(dir)).toBe(holder.child.pid);
  expect(readFileSync(lockFile(dir), 'utf8')).toBe(String(holder.child.pid));
});

it('goes back to the next process the moment its holder is killed, with no stale lock left to handle', async () => {
  const dir = folder();
  const holder = contender(dir);
  await holder.ready;
  await holder.ask({ take: 0 });
  const gone = new Promise((r) => holder.child.once('exit', r));
  holder.child.kill('SIGKILL');
  await gone;
  // The file still names the killed process: it is no lock, and nothing reads it to decide.
  expect(readFileSync(lockFile(dir), 'utf8')).toBe(String(holder.child.pid));
  const lock = takeLock(dir);
  expect(readFileSync(lockFile(dir), 'utf8')).toBe(String(process.pid));
  lock.release();
});

it.each([
  ['a process that is gone', () => String(deadPid())],
  ['this very process', () => String(process.pid)],
  ['nothing (a crash mid-write)', () => ''],
  ['what is not a pid', () => 'garbage'],
])('is taken at once over a lock file naming %s', (_what, content) => {
  const dir = folder();
  writeFileSync(lockFile(dir), content());
  const lock = takeLock(dir);
  expect(readFileSync(lockFile(dir), 'utf8')).toBe(String(process.pid));
  expect(lockHolder(dir)).toBeUndefined();
  lock.release();
  // Released, it can be taken again; the file stays, as removing it would let two processes lock two files.
  takeLock(dir).release();
  expect(readFileSync(lockFile(dir), 'utf8')).toBe(String(process.pid));
});

it('is taken once per process: a second open of a folder this process holds is refused plainly', () => {
  const dir = folder();
  const lock = takeLock(dir);
  expect(() => takeLock(dir)).toThrow(`This process already holds the data folder ${dir}.`);
  lock.release();
});

it('never follows a link planted as the lock file', () => {
  const dir = folder();
  const target = join(dir, 'elsewhere');
  writeFileSync(target, 'precious');
  symlinkSync(target, lockFile(dir));
  expect(() => takeLock(dir)).toThrow(/ELOOP/);
  expect(readFileSync(target, 'utf8')).toBe('precious');
});

it('goes to exactly one of eight processes starting at once, 200 times over a stale lock and 200 times over none', { timeout: 300_000 }, async () => {
  const dir = folder();
  const contenders = Array.from({ length: 8 }, () => contender(dir));
  await Promise.all(contenders.map((c) => c.ready));
  const winners: number[] = [];
  for (let round = 0; round < 400; round++) {
    if (round < 200) writeFileSync(lockFile(dir), String(deadPid()));
    else rmSync(lockFile(dir), { force: true });
    const at = Date.now() + 15;
    const said = await Promise.all(contenders.map((c) => c.ask({ take: at })));
    const took = said.filter((s) => s.said === 'took');
    expect(said.filter((s) => s.said !== 'took' && s.said !== 'refused')).toEqual([]);
    expect(took.length, `round ${round}: ${took.length} processes took the lock`).toBe(1);
    expect(readFileSync(lockFile(dir), 'utf8')).toBe(String(took[0]!.pid));
    winners.push(took[0]!.pid);
    await contenders.find((c) => c.child.pid === took[0]!.pid)!.ask({ release: true });
  }
  // Fair enough to be a real race: more than one process won over the rounds.
  expect(new Set(winners).size).toBeGreaterThan(1);
});
