import { describe, expect, it } from 'vitest';
import { ownWords, passwordWeakness } from './password-strength';
import { messages } from './validation';

const owner = { email: 'qz7vbx4kpwt@nodeharbor.test', fullName: 'Wilhelmina Quaxley' };
const weak = { message: messages.passwordCommon, reasons: ['pwned'] };

// Item 4 of issue 33.
describe('passwordWeakness', () => {
  it("refuses a repeated letter, the site name, common passwords, and the owner's address, local part and name", () => {
    for (const password of [
      'aaaaaaaa',
      'nodeharbor',
      'NodeHarbor!',
      'password1',
      'Iloveyou1',
      'qwertyuiop',
      owner.email,
      'qz7vbx4kpwt',
      'QZ7VBX4KPWT',
      'WilhelminaQuaxley',
    ]) {
      expect(passwordWeakness(password, owner), password).toEqual(weak);
    }
  });

  it("judges the owner's words only for the owner: another's local part is as random as it looks", () => {
    expect(passwordWeakness('qz7vbx4kpwt', {})).toBeNull();
    expect(passwordWeakness('qz7vbx4kpwt', { email: 'someone@example.com' })).toBeNull();
  });

  it("gives both of GoTrue's reasons for a short, weak password, and passes a strong passphrase", () => {
    expect(passwordWeakness('abc1', owner)).toEqual({ message: `${messages.passwordLength} ${messages.passwordCommon}`, reasons: ['length', 'pwned'] });
    expect(passwordWeakness('lantern-orbit-quiet-mango', owner)).toBeNull();
    expect(passwordWeakness('correct-horse-battery', owner)).toBeNull();
  });

  it('takes the address, its parts and the name, lowercased, with the site name', () => {
    expect(ownWords({ email: ' Jane.Doe+nh@Example.com ', fullName: 'Jane Q Doe' })).toEqual([
      'NodeHarbor',
      'jane.doe+nh@example.com',
      'jane.doe+nh',
      'example.com',
      'jane q doe',
      'jane',
      'doe',
      'example',
      'com',
    ]);
    expect(ownWords({})).toEqual(['NodeHarbor']);
  });
});
