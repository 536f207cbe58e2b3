import { randomBytes } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { inject } from 'vitest';
import type { Database } from '../../src/server/db/database';
import { postgresAnswers as answersAt } from '../../scripts/postgres-answers.mjs';
import { openPglite } from '../../src/server/db/pglite';
import { openPostgres } from '../../src/server/db/postgres';
import { DB_DIR } from '../../src/server/paths';

/** Which database the server-side suite runs on: TEST_DB=postgres switches from PGlite. */
export const TEST_DB: 'pglite' | 'postgres' = process.env.TEST_DB === 'postgres' ? 'postgres' : 'pglite';
export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

const dumps = new Map<string, Blob>();
/** A PGlite that global-setup.ts dumped once for the whole run: migrated, or as initdb left it. */
function loadDump(kind: 'pgliteSnapshot' | 'pgliteEmpty'): Blob {
  const file = inject(kind);
  let dump = dumps.get(file);
  if (!dump) dumps.set(file, (dump = new Blob([readFileSync(file)])));
  return dump;
}
const pgliteSnapshot = () => loadDump('pgliteSnapshot');

/**
 * An embedded database as initdb leaves it, before any migration, in memory or in `dir` (a new
 * DATA_DIR): what a first start makes before it migrates, without the initdb (about 8 s of CPU).
 */
export const emptyPglite = (dir?: string): Promise<Database & { dump(): Promise<Blob> }> => openPglite(dir, loadDump('pgliteEmpty'));

/**
 * Makes `dir` a DATA_DIR whose embedded database is the run's migrated one, as a first start leaves
 * it but without the initdb and every migration (about 12 s of CPU in each new folder), for a test
 * of a process that is not about the first start. The process still makes its secrets and first
 * admin as it starts.
 */
export async function migratedDataFolder(dir: string): Promise<string> {
  const db = await openPglite(dir, pgliteSnapshot());
  await db.close();
  return dir;
}

/** `dump` is PGlite's data folder as a tar file (dumpDataDir); `url` where PostgreSQL serves it. */
export type TestDatabase = { db: Database & { dump?(): Promise<Blob> }; url?: string; drop(): Promise<void> };

/**
 * A fresh, migrated database for one test file: an in-memory PGlite from the snapshot, or a new
 * database on the test PostgreSQL cloned from the run's migrated template (global-setup.ts),
 * whose pool waits `poolTimeoutMs` for a connection (the server's DATABASE_POOL_TIMEOUT_MS).
 */
export async function createTestDatabase(opts: { poolTimeoutMs?: number } = {}): Promise<TestDatabase> {
  if (TEST_DB === 'pglite') {
    const db = await openPglite(undefined, pgliteSnapshot());
    return { db, drop: async () => {} };
  }
  const scratch = await createPostgresDatabase('nh_test', inject('postgresTemplate'));
  const db = await openPostgres(scratch.url, 10, opts.poolTimeoutMs ? { poolTimeoutMs: opts.poolTimeoutMs } : {});
  return { db, url: scratch.url, drop: scratch.drop };
}

/** Whether the test PostgreSQL answers: the tests that need one beside PGlite run only then. */
export const postgresAnswers = (): Promise<boolean> => answersAt(TEST_DATABASE_URL);

/** Runs one statement as the test PostgreSQL's superuser. */
async function asSuperuser(sql: string): Promise<void> {
  const c = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

/**
 * A database on the test PostgreSQL, named `prefix_<random>`, for a test and the processes it
 * starts: empty, or a copy of `template`.
 */
export async function createPostgresDatabase(prefix: string, template?: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  await asSuperuser(`create database ${name}${template ? ` template ${template}` : ''}`);
  const url = new URL(TEST_DATABASE_URL);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => asSuperuser(`drop database if exists ${name} with (force)`) };
}

/**
 * A db/ folder in the temp folder with the platform's migrations and ours numbered below `next`
 * (e.g. '0016'): the database as a release before `next` left it, for a test of upgrading it.
 */
export function migrationsBefore(next: string): string {
  const dir = mkdtempSync(join(tmpdir(), `nh-before-${next}-`));
  symlinkSync(join(DB_DIR, 'platform'), join(dir, 'platform'));
  mkdirSync(join(dir, 'migrations'));
  for (const f of readdirSync(join(DB_DIR, 'migrations')).filter((f) => f < next)) copyFileSync(join(DB_DIR, 'migrations', f), join(dir, 'migrations', f));
  return dir;
}

/**
 * A database before any migration, for a test of migrating one: an in-memory PGlite as initdb
 * leaves it, or a new empty database on the test PostgreSQL (`prefix_<random>`) with a pool of
 * `connections`. `url` is PostgreSQL's, for a process the test starts.
 */
export async function emptyTestDatabase(prefix: string, connections = 2): Promise<{ db: Database; url?: string; drop(): Promise<void> }> {
  if (TEST_DB === 'pglite') return { db: await emptyPglite(), drop: async () => {} };
  const scratch = await createPostgresDatabase(prefix);
  return { db: await openPostgres(scratch.url, connections), url: scratch.url, drop: scratch.drop };
}

/**
 * A login role that is no superuser, owning an empty database of its own name, prepared as the
 * README's "PostgreSQL without a superuser" says: the API roles are made first when this cluster
 * has none yet (on a fresh machine no migration may have run on it before this test).
 */
export async function createOwnerRole(): Promise<{ owner: string; url: string; drop(): Promise<void> }> {
  const owner = `nh_owner_${randomBytes(5).toString('hex')}`;
  await asSuperuser(`do $$
    declare r record;
    begin
      for r in select * from (values ('anon', 'nologin noinherit'), ('authenticated', 'nologin noinherit'),
                                     ('service_role', 'nologin noinherit bypassrls')) as v (name, options) loop
        if not exists (select 1 from pg_roles where rolname = r.name) then
          begin
            execute format('create role %I %s', r.name, r.options);
          exception when duplicate_object or unique_violation then null;
          end;
        end if;
      end loop;
    end $$`);
  await asSuperuser(`create role ${owner} login nosuperuser nocreaterole nocreatedb`);
  await asSuperuser(`create database ${owner} owner ${owner}`);
  await asSuperuser(`grant anon, authenticated, service_role to ${owner}`);
  const url = new URL(TEST_DATABASE_URL);
  url.username = owner;
  url.pathname = `/${owner}`;
  return {
    owner,
    url: url.toString(),
    drop: async () => {
      await asSuperuser(`drop database if exists ${owner} with (force)`);
      await asSuperuser(`drop role if exists ${owner}`);
    },
  };
}
