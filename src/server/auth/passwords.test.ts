import { hash as nativeHash } from '@node-rs/bcrypt';
import bcrypt from 'bcryptjs';
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import type { AuthError } from './auth-errors';
import { assertPasswordAcceptable, hashPassword, PASSWORD_COST, passwordCost, verifyPassword } from './passwords';

describe('passwords', () => {
  // The one test at the production cost: the suite hashes at the test cost (passwordCost).
  it('hashes as GoTrue does, $2a$ at cost 10, and verifies, off the event loop: other work goes on meanwhile', async () => {
    const testCost = process.env.NODEHARBOR_TEST_PASSWORD_COST;
    delete process.env.NODEHARBOR_TEST_PASSWORD_COST;
    try {
      expect(passwordCost()).toBe(PASSWORD_COST);
      const hash = await hashPassword('correct horse');
      expect(hash).toMatch(/^\$2a\$10\$[./A-Za-z0-9]{53}$/);
      let ticks = 0;
      let finished = false;
      const tick = () => {
        ticks++;
        if (!finished) setImmediate(tick);
      };
      setImmediate(tick);
      const [, , right, wrong] = await Promise.all([
        hashPassword('first-one'),
        hashPassword('second-one'),
        verifyPassword('correct horse', hash),
        verifyPassword('correct hors', hash),
      ]);
      finished = true;
      expect([right, wrong]).toEqual([true, false]);
      // A free loop turns thousands of times while four hashes take their ~60 ms each; work on the
      // main thread lets it turn only between them (bcryptjs yields every 100 ms at most).
      expect(ticks).toBeGreaterThan(100);
    } finally {
      if (testCost !== undefined) process.env.NODEHARBOR_TEST_PASSWORD_COST = testCost;
    }
  });

  it('hashes at the test cost in this suite, and at the production cost in a process that is no test', async () => {
    expect(passwordCost()).toBe(4);
    expect(await hashPassword('quick')).toMatch(/^\$2a\$04\$/);
    const env = { ...process.env, NODE_ENV: 'production' };
    const tsx = createRequire(import.meta.url).resolve('tsx');
    const said = execFileSync(
      process.execPath,
      [
        '--import',
        tsx,
        '--input-type=module',
        '-e',
        `console.log((await import(${JSON.stringify(new URL('./passwords.ts', import.meta.url).href)})).passwordCost())`,
      ],
      { env },
    ).toString();
    expect(said.trim()).toBe(String(PASSWORD_COST));
  });

  // Go's x/crypto/bcrypt test vector (TestBcryptingIsCorrect): "allmine" with this 16-byte salt.
  const GO_SALT = Uint8Array.from([101, 201, 101, 75, 19, 227, 199, 20, 239, 236, 133, 32, 30, 109, 243, 30]);
  const GO_HASH = '$2a$10$XajjQvNhvvRt5GSeFk1xFeyqRrsxkhBkUiQeg0dt.wU1qD4aFDcga';

  it('writes, byte for byte, what GoTrue writes and verifies what it wrote', async () => {
    expect((await nativeHash('allmine', 10, GO_SALT)).replace(/^\$2b\$/, '$2a$')).toBe(GO_HASH);
    expect(await verifyPassword('allmine', GO_HASH)).toBe(true);
    expect(await verifyPassword('allmina', GO_HASH)).toBe(false);
  });

  it('agrees with an independent implementation (bcryptjs) both ways', async () => {
    const ours = await hashPassword('round-trip');
    expect(bcrypt.compareSync('round-trip', ours)).toBe(true);
    expect(bcrypt.compareSync('round-trap', ours)).toBe(false);
    expect(bcrypt.compareSync('allmine', GO_HASH)).toBe(true);
    const theirs = bcrypt.hashSync('round-trip', 4);
    expect(await verifyPassword('round-trip', theirs)).toBe(true);
    expect(await verifyPassword('round-trap', theirs)).toBe(false);
  });

  it('verifies hashes written elsewhere, at other costs and labels', async () => {
    const fromGo = bcrypt.hashSync('exported-pass', bcrypt.genSaltSync(4)).replace(/^\$2b\$/, '$2a$');
    // Another cost than ours, not a higher one: a test pays no more than a sign-in does.
    const cost8 = bcrypt.hashSync('exported-pass', 8);
    const php = bcrypt.hashSync('exported-pass', 4).replace(/^\$2b\$/, '$2y$');
    for (const h of [fromGo, cost8, php]) {
      expect(await verifyPassword('exported-pass', h)).toBe(true);
      expect(await verifyPassword('Exported-pass', h)).toBe(false);
    }
  });

  it('checks passwords on threads of lower priority than the event loop (nice +10)', async () => {
    const niceOf = (task: string) => Number(readFileSync(`/proc/self/task/${task}/stat`, 'utf8').split(') ')[1]!.split(' ')[16]);
    const hash = await hashPassword('priority');
    // Threads of the pool that ran the hash above, or start for these checks.
    const checks = Promise.all(Array.from({ length: 4 }, () => verifyPassword('priority', hash)));
    const niced = readdirSync('/proc/self/task').filter((t) => niceOf(t) === 10);
    expect(await checks).toEqual([true, true, true, true]);
    expect(niced.length).toBeGreaterThan(0);
    expect(niceOf(String(process.pid))).toBe(0);
  });

  it('answers false, without throwing, for a missing or malformed hash', async () => {
    expect(await verifyPassword('anything', null)).toBe(false);
    expect(await verifyPassword('anything', 'plain-text')).toBe(false);
  });

  it("refuses weak passwords with GoTrue's reasons (the shared rule) and over-long ones as invalid", () => {
    const owner = { email: 'ada@example.com', fullName: 'Ada Lovelace' };
    const thrown = (password: string) => {
      try {
        assertPasswordAcceptable(password, owner);
      } catch (e) {
        return e as AuthError;
      }
    };
    expect([thrown('abc')?.status, thrown('abc')?.code, thrown('abc')?.extra]).toEqual([
      422,
      'weak_password',
      { weak_password: { reasons: ['length', 'pwned'] } },
    ]);
    expect(thrown('password')?.message).toMatch(/known to be weak/);
    expect(thrown('ada@example.com')?.extra).toEqual({ weak_password: { reasons: ['pwned'] } });
    expect(thrown('correct-horse-battery')).toBeUndefined();
    expect(thrown(`${'Quiet lantern orbit, '.repeat(3)}mango tree 7!`.slice(0, 72))).toBeUndefined();
    expect(thrown('x'.repeat(73))?.message).toMatch(/longer than 72/);
    // 72 bytes is bcrypt's real limit: 37 two-byte characters are 74 bytes.
    expect(thrown('é'.repeat(37))?.message).toMatch(/longer than 72/);
  });
});
