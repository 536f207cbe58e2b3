import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { makePrivateFolder } from './db/private-folder';
import type { Config } from './env';

type Secrets = { jwtSecret: string; encryptionKey: string };

/**
 * The embedded default needs no set-up: secrets not given in the environment are generated once
 * and kept in DATA_DIR/secrets.json (mode 0600), so tokens and stored keys survive a restart.
 * With DATABASE_URL the environment must give them (env.ts enforces it).
 */
export function resolveSecrets(config: Pick<Config, 'jwtSecret' | 'encryptionKey' | 'dataDir' | 'databaseUrl'>): Secrets {
  if (config.jwtSecret && config.encryptionKey) return { jwtSecret: config.jwtSecret, encryptionKey: config.encryptionKey };
  const dir = resolve(config.dataDir);
  const file = join(dir, 'secrets.json');
  let stored: Partial<Secrets> = {};
  if (existsSync(file)) stored = JSON.parse(readFileSync(file, 'utf8')) as Partial<Secrets>;
  const out: Secrets = {
    jwtSecret: config.jwtSecret ?? stored.jwtSecret ?? randomBytes(32).toString('base64url'),
    encryptionKey: config.encryptionKey ?? stored.encryptionKey ?? randomBytes(32).toString('base64url'),
  };
  // The file is the only copy of a generated encryption key (the database keeps none, 011): an
  // ENCRYPTION_KEY from the environment, perhaps a wrong one the start will refuse, never replaces it.
  const kept: Secrets = { jwtSecret: out.jwtSecret, encryptionKey: stored.encryptionKey ?? out.encryptionKey };
  if (kept.jwtSecret !== stored.jwtSecret || kept.encryptionKey !== stored.encryptionKey) {
    makePrivateFolder(dir);
    writeFileSync(file, JSON.stringify(kept, null, 2), { mode: 0o600 });
  }
  return out;
}
