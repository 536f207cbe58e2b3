import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { Database } from '../../src/server/db/database';
import { openPglite } from '../../src/server/db/pglite';
import { openPostgres } from '../../src/server/db/postgres';
import { withEncryptionKeys, type EncryptionKeys } from '../../src/server/db/with-encryption-keys';
import { resolveSecrets } from '../../src/server/local-secrets';

export type Kind = 'postgres' | 'pglite';

/** One database the server runs on in the bench, created empty for each run. */
export type Target = {
  kind: Kind;
  /** The server's environment for this database. */
  env: Record<string, string>;
  /** PostgreSQL only: the bench database's URL, for pgbench. */
  url?: string;
  /**
   * Opens the database in this process with the server's encryption key set in every transaction,
   * as the server has it; for PGlite only while the server is stopped (one process per folder).
   * `openRaw` opens it without, for a caller that wraps it (to count statements) before the key.
   */
  open(): Promise<Database>;
  openRaw(): Promise<Database>;
  /** The server's keys: known once the server has started (PGlite's are generated in its folder). */
  keys(): EncryptionKeys;
  dispose(): Promise<void>;
};

/** Where PostgreSQL listens (loopback, trust auth, as in CI); the bench uses a database of its own. */
const PG_SERVER = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432';
const BENCH_DB = 'nodeharbor_bench';

// Fixed for the bench database only: every process of a PostgreSQL deployment must share them.
const SECRETS = { JWT_SECRET: 'bench-jwt-secret-bench-jwt-secret-0123', ENCRYPTION_KEY: 'bench-encryption-key-bench-encryption-01' };

async function admin(sql: string): Promise<void> {
  const c = new pg.Client({ connectionString: `${PG_SERVER}/postgres` });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

/** Drops and creates the bench database: never `test`, which the test suite uses. */
const keys: EncryptionKeys = { current: SECRETS.ENCRYPTION_KEY, previous: undefined };

export async function postgresTarget(): Promise<Target> {
  await admin(`drop database if exists ${BENCH_DB} with (force)`);
  await admin(`create database ${BENCH_DB}`);
  const url = `${PG_SERVER}/${BENCH_DB}`;
  return {
    kind: 'postgres',
    url,
    env: { DATABASE_URL: url, ...SECRETS },
    open: async () => withEncryptionKeys(await openPostgres(url, 4), keys),
    openRaw: () => openPostgres(url, 4),
    keys: () => keys,
    dispose: () => admin(`drop database if exists ${BENCH_DB} with (force)`),
  };
}

export async function pgliteTarget(): Promise<Target> {
  const dir = mkdtempSync(join(tmpdir(), 'nh-bench-pglite-'));
  // The embedded default generates its key into DATA_DIR/secrets.json at its first start.
  const pgliteKeys = (): EncryptionKeys => ({
    current: resolveSecrets({ jwtSecret: undefined, encryptionKey: undefined, dataDir: dir, databaseUrl: undefined }).encryptionKey,
    previous: undefined,
  });
  return {
    kind: 'pglite',
    env: { DATA_DIR: dir },
    open: async () => withEncryptionKeys(await openPglite(dir), pgliteKeys()),
    openRaw: () => openPglite(dir),
    keys: pgliteKeys,
    dispose: async () => rmSync(dir, { recursive: true, force: true }),
  };
}
