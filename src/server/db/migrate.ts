import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Database } from './database';

import { DB_DIR } from '../paths';

export type MigrateOptions = {
  /** Apply db/platform first: only when this server hosts auth itself (not on a hosted Supabase). */
  platform: boolean;
  dir?: string;
};

/**
 * Applies db/platform/*.sql (when asked) then db/migrations/*.sql, each once, in name order, each
 * in its own transaction, recorded in nodeharbor.migrations. An advisory lock makes several
 * processes starting together on one PostgreSQL apply each file once.
 */
export async function migrate(db: Database, opts: MigrateOptions): Promise<string[]> {
  const root = opts.dir ?? DB_DIR;
  const folders = [...(opts.platform ? ['platform'] : []), 'migrations'];
  const applied: string[] = [];
  await db.exec(`
    create schema if not exists nodeharbor;
    create table if not exists nodeharbor.migrations (
      name text primary key,
      applied_at timestamptz not null default now()
    );
  `);
  for (const folder of folders) {
    const files = readdirSync(join(root, folder))
      .filter((f) => f.endsWith('.sql'))
      .sort();
    for (const file of files) {
      const name = `${folder}/${file}`;
      const sql = readFileSync(join(root, folder, file), 'utf8');
      await db.transaction(async (tx) => {
        // Another process may be applying a long migration: wait for it, past DATABASE_LOCK_TIMEOUT_MS.
        await tx.exec('set local lock_timeout = 0');
        await tx.query('select pg_advisory_xact_lock(7262001)');
        const done = await tx.query('select 1 from nodeharbor.migrations where name = $1', [name]);
        if (done.rowCount > 0) return;
        await tx.exec(sql);
        await tx.query('insert into nodeharbor.migrations (name) values ($1)', [name]);
        applied.push(name);
      });
    }
  }
  return applied;
}

