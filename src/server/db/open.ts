import type { Config } from '../env';
import type { Database } from './database';
import type { FolderLock } from './data-folder-lock';
import { openPglite } from './pglite';
import { openPostgres } from './postgres';

/** Opens the configured database: PostgreSQL when DATABASE_URL is set, else PGlite in DATA_DIR (with `lock`, its lock taken already). */
export function openDatabase(
  config: Pick<Config, 'databaseUrl' | 'databasePoolSize' | 'databasePoolTimeoutMs' | 'databaseLockTimeoutMs' | 'databaseQueryTimeoutMs' | 'dataDir'>,
  lock?: FolderLock,
): Promise<Database> {
  return config.databaseUrl
    ? openPostgres(config.databaseUrl, config.databasePoolSize, {
        poolTimeoutMs: config.databasePoolTimeoutMs,
        lockTimeoutMs: config.databaseLockTimeoutMs,
        queryTimeoutMs: config.databaseQueryTimeoutMs,
      })
    : openPglite(config.dataDir, undefined, lock);
}
