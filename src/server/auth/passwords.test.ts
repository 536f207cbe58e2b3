import bcrypt from 'bcryptjs';
import { describe, expect, it } from 'vitest';
import type { AuthError } from './auth-errors';
import { assertPasswordAcceptable, hashPassword, passwordWeakness, verifyPassword } from './passwords';

describe('passwords', () => {
  it('hashes as GoTrue does: $2a$, cost 10, and verifies', async () => {
    const hash = await hashPassword('correct horse');
    expect(hash).toMatch(/^\$2a\$10\$[./A-Za-z0-9]{53}$/);
    expect(await verifyPassword('correct horse', hash)).toBe(true);
    expect(await verifyPassword('correct hors', hash)).toBe(false);
  });

  it('verifies hashes written elsewhere, at other costs and labels', async () => {
    const fromGo = bcrypt.hashSync('exported-pass', bcrypt.genSaltSync(4)).replace(/^\$2b\$/, '$2a$');
    const cost12 = bcrypt.hashSync('exported-pass', 12);
    const php = bcrypt.hashSync('exported-pass', 4).replace(/^\$2b\$/, '$2y$');
    for (const h of [fromGo, cost12, php]) {
      expect(await verifyPassword('exported-pass', h)).toBe(true);
      expect(await verifyPassword('Exported-pass', h)).toBe(false);
    }
  });

  it('answers false, without throwing, for a missing or malformed hash', async () => {
    expect(await verifyPassword('anything', null)).toBe(false);
    expect(await verifyPassword('anything', 'plain-text')).toBe(false);
  });

  it('refuses short or common passwords with reasons and over-long ones as invalid', () => {
    expect(passwordWeakness('Xq7#vR2')).toEqual({ message: 'Password should be at least 8 characters.', reasons: ['length'] });
    expect(passwordWeakness('Xq7#vR2!')).toBeNull();
    expect(passwordWeakness('123456')).toEqual({
      message: 'Password should be at least 8 characters. Password is known to be weak and easy to guess, please choose a different one.',
      reasons: ['length', 'pwned'],
    });
    // Common whatever the case: 'Password1' is 'password1' with a capital.
    for (const common of ['password', '12345678', 'Password1', 'iloveyou', 'qwertyuiop']) {
      expect(passwordWeakness(common)?.reasons).toEqual(['pwned']);
    }
    const weak = (() => {
      try {
        assertPasswordAcceptable('abc');
      } catch (e) {
        return e;
      }
    })() as AuthError;
    expect([weak.status, weak.code, weak.extra]).toEqual([422, 'weak_password', { weak_password: { reasons: ['length'] } }]);
    expect(() => assertPasswordAcceptable('password')).toThrow(/known to be weak/);
    expect(() => assertPasswordAcceptable('xy'.repeat(36))).not.toThrow();
    expect(() => assertPasswordAcceptable('x'.repeat(73))).toThrow(/longer than 72/);
    // 72 bytes is bcrypt's real limit: 37 two-byte characters are 74 bytes.
    expect(() => assertPasswordAcceptable('é'.repeat(37))).toThrow(/longer than 72/);
  });
});
