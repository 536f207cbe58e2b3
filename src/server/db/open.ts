import type { Config } from '../env';
import type { Database } from './database';
import { openPglite } from './pglite';
import { openPostgres } from './postgres';

/** Opens the configured database: PostgreSQL when DATABASE_URL is set, else PGlite in DATA_DIR. */
export function openDatabase(
  config: Pick<Config, 'databaseUrl' | 'databasePoolSize' | 'databasePoolTimeoutMs' | 'databaseLockTimeoutMs' | 'dataDir'>,
): Promise<Database> {
  return config.databaseUrl
    ? openPostgres(config.databaseUrl, config.databasePoolSize, { poolTimeoutMs: config.databasePoolTimeoutMs, lockTimeoutMs: config.databaseLockTimeoutMs })
    : openPglite(config.dataDir);
}
