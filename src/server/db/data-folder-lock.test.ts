import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, expect, it } from 'vitest';
import { ROOT } from '../paths';
import { lockHolder, takeLock } from './data-folder-lock';

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
/** A pid no process has any more. */
const deadPid = () => spawnSync(process.execPath, ['-e', '']).pid!;
const sleeper = () => {
  const c = spawn('sleep', ['60'], { stdio: 'ignore' });
  children.push(c);
  return c.pid!;
};

it('is refused while a live process holds it, and names that process', () => {
  const dir = folder();
  const file = join(dir, 'nodeharbor.lock');
  const other = sleeper();
  writeFileSync(file, String(other));
  expect(() => takeLock(file)).toThrow(
    `The data folder is in use by another NodeHarbor process (pid ${other}). Stop it first, or set DATA_DIR to another folder.`,
  );
  expect(readFileSync(file, 'utf8')).toBe(String(other));
  expect(lockHolder(dir)).toBe(other);
});

it.each([
  ['a process that is gone', () => String(deadPid())],
  ['nothing (a crash mid-write)', () => ''],
  ['what is not a pid', () => 'garbage'],
])('takes over a stale lock naming %s', (_what, content) => {
  const dir = folder();
  const file = join(dir, 'nodeharbor.lock');
  writeFileSync(file, content());
  takeLock(file);
  expect(readFileSync(file, 'utf8')).toBe(String(process.pid));
  expect(lockHolder(dir)).toBeUndefined();
  expect(existsSync(`${file}.stale-${process.pid}`)).toBe(false);
});

it('goes to exactly one of several processes starting at once, over a stale lock', { timeout: 60_000 }, async () => {
  const dir = folder();
  const file = join(dir, 'nodeharbor.lock');
  writeFileSync(file, String(deadPid()));
  const go = join(dir, 'go');
  const tsx = pathToFileURL(createRequire(join(ROOT, 'package.json')).resolve('tsx')).href;
  const lockModule = pathToFileURL(join(ROOT, 'src/server/db/data-folder-lock.ts')).href;
  // Each waits for the same moment, tries, says how it went, and stays alive holding what it got.
  const script = `
    import { existsSync } from 'node:fs';
    const { takeLock } = await import(${JSON.stringify(lockModule)});
    while (!existsSync(${JSON.stringify(go)})) await new Promise((r) => setTimeout(r, 1));
    try { takeLock(${JSON.stringify(file)}); console.log('took'); } catch (e) { console.log(e.message.includes('in use') ? 'refused' : 'error: ' + e.message); }
    setInterval(() => {}, 1000);`;
  const outcomes = Array.from({ length: 6 }, () => {
    const c = spawn(process.execPath, ['--import', tsx, '--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    children.push(c);
    return new Promise<{ pid: number; said: string }>((resolve) => c.stdout!.once('data', (d: Buffer) => resolve({ pid: c.pid!, said: d.toString().trim() })));
  });
  // Every process has loaded the module and waits: the tries then fall within a millisecond or two.
  await new Promise((r) => setTimeout(r, 4000));
  writeFileSync(go, '');
  const said = await Promise.all(outcomes);
  expect(said.map((s) => s.said).sort()).toEqual(['refused', 'refused', 'refused', 'refused', 'refused', 'took']);
  expect(readFileSync(file, 'utf8')).toBe(String(said.find((s) => s.said === 'took')!.pid));
});
