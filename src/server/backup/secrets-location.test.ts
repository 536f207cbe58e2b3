import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { secretSettings, whereSecretsAre } from './secrets-location';

const file = join(resolve('data'), 'secrets.json');

describe('where the secrets are', () => {
  it.each([
    [
      { jwtSecret: 'j', encryptionKey: 'k' },
      'both are set in the environment',
      ['JWT_SECRET=<the JWT_SECRET set now>', 'ENCRYPTION_KEY=<the ENCRYPTION_KEY set now>'],
    ],
    [
      { jwtSecret: undefined, encryptionKey: undefined },
      `both are in ${file}`,
      [`JWT_SECRET=<the jwtSecret in ${file}>`, `ENCRYPTION_KEY=<the encryptionKey in ${file}>`],
    ],
    [
      { jwtSecret: 'j', encryptionKey: undefined },
      `JWT_SECRET is set in the environment, ENCRYPTION_KEY is in ${file}`,
      ['JWT_SECRET=<the JWT_SECRET set now>', `ENCRYPTION_KEY=<the encryptionKey in ${file}>`],
    ],
    [
      { jwtSecret: undefined, encryptionKey: 'k' },
      `ENCRYPTION_KEY is set in the environment, JWT_SECRET is in ${file}`,
      [`JWT_SECRET=<the jwtSecret in ${file}>`, 'ENCRYPTION_KEY=<the ENCRYPTION_KEY set now>'],
    ],
  ])('%o', (secrets, where, settings) => {
    const config = { ...secrets, dataDir: 'data' };
    expect(whereSecretsAre(config)).toBe(where);
    expect(secretSettings(config)).toEqual(settings);
  });
});
