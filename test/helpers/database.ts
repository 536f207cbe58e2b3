import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import pg from 'pg';
import { inject } from 'vitest';
import type { Database } from '../../src/server/db/database';
import { postgresAnswers as answersAt } from '../../scripts/postgres-answers.mjs';
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

/** `dump` is PGlite's data folder as a tar file (dumpDataDir); `url` where PostgreSQL serves it. */
export type TestDatabase = { db: Database & { dump?(): Promise<Blob> }; url?: string; drop(): Promise<void> };

/**
 * A fresh, migrated database for one test file: an in-memory PGlite from the snapshot, or a new
 * database on the test PostgreSQL.
 */
export async function createTestDatabase(): Promise<TestDatabase> {
  if (TEST_DB === 'pglite') {
    const db = await openPglite(undefined, pgliteSnapshot());
    return { db, drop: async () => {} };
  }
  const scratch = await createEmptyPostgres('nh_test');
  const db = await openPostgres(scratch.url, 10);
  await migrate(db, { platform: true });
  return { db, url: scratch.url, drop: scratch.drop };
}

/** Whether the test PostgreSQL answers: the tests that need one beside PGlite run only then. */
export const postgresAnswers = (): Promise<boolean> => answersAt(TEST_DATABASE_URL);

/** An empty database on the test PostgreSQL, named `prefix_<random>`, for a test and the processes it starts. */
export async function createEmptyPostgres(prefix: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  const admin = async (sql: string) => {
    const c = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await c.connect();
    try {
      await c.query(sql);
    } finally {
      await c.end();
    }
  };
  await admin(`create database ${name}`);
  const url = new URL(TEST_DATABASE_URL);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => admin(`drop database if exists ${name} with (force)`) };
}
