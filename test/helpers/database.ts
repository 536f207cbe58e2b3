import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import pg from 'pg';
import { inject } from 'vitest';
import type { Database } from '../../src/server/db/database';
import { migrate } from '../../src/server/db/migrate';
import { openPglite } from '../../src/server/db/pglite';
import { openPostgres } from '../../src/server/db/postgres';

/** Which database the server-side suite runs on: TEST_DB=postgres switches from PGlite. */
export const TEST_DB: 'pglite' | 'postgres' = process.env.TEST_DB === 'postgres' ? 'postgres' : 'pglite';
export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

let snapshot: Blob | undefined;

/** The migrated PGlite that global-setup.ts dumped once for the whole run. */
function pgliteSnapshot(): Blob {
  snapshot ??= new Blob([readFileSync(inject('pgliteSnapshot'))]);
  return snapshot;
}

export type TestDatabase = { db: Database; url?: string; drop(): Promise<void> };

/**
 * A fresh, migrated database for one test file: an in-memory PGlite from the snapshot, or a new
 * database on the test PostgreSQL.
 */
export async function createTestDatabase(): Promise<TestDatabase> {
  if (TEST_DB === 'pglite') {
    const db = await openPglite(undefined, pgliteSnapshot());
    return { db, drop: async () => {} };
  }
  const name = `nh_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  const url = new URL(TEST_DATABASE_URL);
  url.pathname = `/${name}`;
  const db = await openPostgres(url.toString(), 10);
  await migrate(db, { platform: true });
  return {
    db,
    url: url.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: TEST_DATABASE_URL });
      await c.connect();
      await c.query(`drop database if exists ${name} with (force)`);
      await c.end();
    },
  };
}
