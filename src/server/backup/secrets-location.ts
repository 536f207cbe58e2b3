import { join, resolve } from 'node:path';
import type { Config } from '../env';

type Secret = { variable: 'JWT_SECRET' | 'ENCRYPTION_KEY'; field: 'jwtSecret' | 'encryptionKey'; fromEnv: boolean };

/** JWT_SECRET and ENCRYPTION_KEY of this process: from the environment, or generated into DATA_DIR/secrets.json (local-secrets.ts). */
function secrets(config: Pick<Config, 'jwtSecret' | 'encryptionKey'>): Secret[] {
  return [
    { variable: 'JWT_SECRET', field: 'jwtSecret', fromEnv: config.jwtSecret !== undefined },
    { variable: 'ENCRYPTION_KEY', field: 'encryptionKey', fromEnv: config.encryptionKey !== undefined },
  ];
}

const secretsFile = (config: Pick<Config, 'dataDir'>) => join(resolve(config.dataDir), 'secrets.json');

/** Where an operator finds each secret, for the lines a backup prints. */
export function whereSecretsAre(config: Pick<Config, 'jwtSecret' | 'encryptionKey' | 'dataDir'>): string {
  const [jwt, key] = secrets(config);
  if (jwt!.fromEnv && key!.fromEnv) return 'both are set in the environment';
  if (!jwt!.fromEnv && !key!.fromEnv) return `both are in ${secretsFile(config)}`;
  const fromFile = jwt!.fromEnv ? key! : jwt!;
  const fromEnv = jwt!.fromEnv ? jwt! : key!;
  return `${fromEnv.variable} is set in the environment, ${fromFile.variable} is in ${secretsFile(config)}`;
}

/** `JWT_SECRET=<...>` lines telling the operator which value to set, never the value itself. */
export function secretSettings(config: Pick<Config, 'jwtSecret' | 'encryptionKey' | 'dataDir'>): string[] {
  return secrets(config).map((s) => (s.fromEnv ? `${s.variable}=<the ${s.variable} set now>` : `${s.variable}=<the ${s.field} in ${secretsFile(config)}>`));
}
