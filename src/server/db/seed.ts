import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Database } from './database';
import { DB_DIR } from '../paths';

/** Applies db/seed/*.sql on every start; each file is idempotent (insert … on conflict). */
export async function seed(db: Database, dir = join(DB_DIR, 'seed')): Promise<void> {
  for (const file of readdirSync(dir)
    .filter((f) => f.endsWith('.sql'))
    .sort()) {
    const sql = readFileSync(join(dir, file), 'utf8');
    await db.transaction((tx) => tx.exec(sql));
  }
}
