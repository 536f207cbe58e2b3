import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, expect, it } from 'vitest';
import type { Database } from '../../src/server/db/database';
import { migrate, MigrationEditedError, migrationFiles, migrationStatus } from '../../src/server/db/migrate';
import { createPostgresDatabase, emptyPglite, emptyTestDatabase, TEST_DB } from '../helpers/database';
import { runCli } from './cli-process';

// Each applied migration's checksum (issue 22): an edited one stops the start, and
// `npm run cli -- migrate:status` shows where each stands, without migrating.

const dirs: string[] = [];
let db: Database;
let drop = async () => {};
let dir: string;

/** A folder of three small migrations, as db/ has them. */
function migrationsDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'nh-migrations-'));
  dirs.push(d);
  mkdirSync(join(d, 'migrations'));
  writeFileSync(join(d, 'migrations', '0001_a.sql'), 'create table public.a (id int);\n');
  writeFileSync(join(d, 'migrations', '0002_b.sql'), 'create table public.b (id int);\n');
  writeFileSync(join(d, 'migrations', '0003_c.sql'), 'create table public.c (id int);\n');
  return d;
}
const states = async () => (await migrationStatus(db, migrationFiles({ platform: false, dir }))).map((s) => `${s.state} ${s.name}`);

beforeEach(async () => {
  const empty = await emptyTestDatabase('nh_migrations');
  db = empty.db;
  drop = empty.drop;
  dir = migrationsDir();
});
afterEach(async () => {
  await db.close();
  await drop();
});
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

it('records each migration with its checksum, and reports pending ones until they are applied', async () => {
  expect(await states()).toEqual(['pending migrations/0001_a.sql', 'pending migrations/0002_b.sql', 'pending migrations/0003_c.sql']);
  expect(await migrate(db, { platform: false, dir })).toEqual(['migrations/0001_a.sql', 'migrations/0002_b.sql', 'migrations/0003_c.sql']);
  const { rows } = await db.query<{ checksum: string }>('select checksum from nodeharbor.migrations order by name');
  expect(rows.map((r) => r.checksum)).toEqual(migrationFiles({ platform: false, dir }).map((f) => f.checksum));
  expect(rows[0]!.checksum).toMatch(/^[0-9a-f]{64}$/);

  writeFileSync(join(dir, 'migrations', '0004_d.sql'), 'create table public.d (id int);\n');
  expect((await states()).at(-1)).toBe('pending migrations/0004_d.sql');
  expect(await migrate(db, { platform: false, dir })).toEqual(['migrations/0004_d.sql']);
  expect(await migrate(db, { platform: false, dir })).toEqual([]);
});

it('stops at a migration edited after it was applied, naming it, and applies nothing after it', async () => {
  await migrate(db, { platform: false, dir });
  appendFileSync(join(dir, 'migrations', '0002_b.sql'), 'alter table public.b add column name text;\n');
  writeFileSync(join(dir, 'migrations', '0004_d.sql'), 'create table public.d (id int);\n');
  expect(await states()).toEqual([
    'applied migrations/0001_a.sql',
    'edited migrations/0002_b.sql',
    'applied migrations/0003_c.sql',
    'pending migrations/0004_d.sql',
  ]);
  const failure = await migrate(db, { platform: false, dir }).catch((e: unknown) => e);
  expect(failure).toBeInstanceOf(MigrationEditedError);
  expect((failure as Error).message).toBe(
    'Migration migrations/0002_b.sql was edited after it was applied: the database does not hold what the file says. ' +
      'Put the file back as it was applied (git log -p db/) and write the change as a new migration.',
  );
  expect((await db.query(`select to_regclass('public.d') as d`)).rows[0]).toEqual({ d: null });
});

it('takes a line-ending change for no edit, records the checksum of a migration applied before checksums were kept, and names one this version lacks', async () => {
  await migrate(db, { platform: false, dir });
  const file = join(dir, 'migrations', '0001_a.sql');
  writeFileSync(file, readFileSync(file, 'utf8').replace(/\n/g, '\r\n'));
  await db.query(`update nodeharbor.migrations set checksum = null where name = 'migrations/0002_b.sql'`);
  await db.query(`insert into nodeharbor.migrations (name, checksum) values ('migrations/0009_newer.sql', $1)`, ['0'.repeat(64)]);
  expect(await states()).toEqual([
    'applied migrations/0001_a.sql',
    'applied migrations/0002_b.sql',
    'applied migrations/0003_c.sql',
    'unknown migrations/0009_newer.sql',
  ]);
  expect(await migrate(db, { platform: false, dir })).toEqual([]);
  const { rows } = await db.query<{ checksum: string }>(`select checksum from nodeharbor.migrations where name = 'migrations/0002_b.sql'`);
  expect(rows[0]!.checksum).toBe(migrationFiles({ platform: false, dir })[1]!.checksum);
});

it('npm run cli -- migrate:status shows the database as it is, without migrating it, and what a start then applied', { timeout: 120_000 }, async () => {
  // The CLI's own database, with the real migrations: a data folder as initdb leaves it, or an empty PostgreSQL database.
  const data = mkdtempSync(join(tmpdir(), 'nh-status-'));
  dirs.push(data);
  if (TEST_DB === 'pglite') await (await emptyPglite(data)).close();
  const scratch = TEST_DB === 'postgres' ? await createPostgresDatabase('nh_status') : undefined;
  try {
    const postgres = scratch && {
      DATABASE_URL: scratch.url,
      JWT_SECRET: 'status-test-secret-that-is-long-enough-0123456789',
      ENCRYPTION_KEY: 'status-test-encryption-key-long-enough-0123456789',
    };
    const env = { DATA_DIR: data, ...postgres };
    const files = migrationFiles({ platform: true });
    const before = await runCli(['migrate:status'], env);
    expect(before.code, before.stderr).toBe(0);
    expect(before.stdout).toContain(`pending                   ${files[0]!.name}\n`);
    expect(before.stdout).toContain(`0 applied, ${files.length} pending.\n`);
    // Another command migrates first, as a start does.
    expect((await runCli(['users:list'], env)).code).toBe(0);
    const after = await runCli(['migrate:status'], env);
    expect(after.stdout).toMatch(new RegExp(`^applied  \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d ${files.at(-1)!.name}$`, 'm'));
    expect(after.stdout).toContain(`${files.length} applied, 0 pending.\n`);
  } finally {
    await scratch?.drop();
  }
});
