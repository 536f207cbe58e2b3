import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { migrate } from '../../src/server/db/migrate';
import { migratedTemplate } from './postgres-template';
import { serverBuild } from './server-build';
import { openPglite } from '../../src/server/db/pglite';
import type { Database } from '../../src/server/db/database';
import { DB_DIR, ROOT } from '../../src/server/paths';

declare module 'vitest' {
  export interface ProvidedContext {
    pgliteSnapshot: string;
    pgliteEmpty: string;
    postgresTemplate: string;
  }
}

/** Hash of every SQL file, so a snapshot is reused only while the migrations are unchanged. */
function sqlHash(): string {
  const h = createHash('sha256');
  for (const folder of ['platform', 'migrations']) {
    for (const f of readdirSync(join(DB_DIR, folder)).sort()) h.update(f).update(readFileSync(join(DB_DIR, folder, f)));
  }
  return h.digest('hex').slice(0, 16);
}

/**
 * Builds the server for the processes tests start (server-build.ts), and migrates one database
 * once per run, or once per change of the SQL files, for each test file to start from: on PGlite a
 * dump each file loads in about a second instead of running initdb and every migration again; on
 * PostgreSQL a template database each file's database is created from. The PostgreSQL pass has the
 * dump too: its tests start processes on the embedded database as well (migratedDataFolder).
 */
export default async function setup(project: TestProject): Promise<void> {
  project.provide('serverBuild', await serverBuild());
  if (process.env.TEST_DB === 'postgres') project.provide('postgresTemplate', await migratedTemplate(`nh_template_${sqlHash()}`));
  // As initdb leaves a database, for the tests of migrating one: it changes with PGlite alone.
  const empty = await pgliteDump(`empty-${PGLITE_VERSION}`, async () => {});
  project.provide('pgliteEmpty', empty);
  // Made again when a migration or PGlite changes: a dump of another PGlite may not open.
  const migrated = await pgliteDump(`${sqlHash()}-${PGLITE_VERSION}`, (db) => migrate(db, { platform: true }), empty);
  project.provide('pgliteSnapshot', migrated);
}

const PGLITE_VERSION = (JSON.parse(readFileSync(join(ROOT, 'node_modules/@electric-sql/pglite/package.json'), 'utf8')) as { version: string }).version;

/** The dump `nodeharbor-pglite-<key>.tar` in the temp folder, made by `prepare` (on `from`, or a new database) when missing. */
async function pgliteDump(key: string, prepare: (db: Database) => Promise<unknown>, from?: string): Promise<string> {
  const file = join(tmpdir(), `nodeharbor-pglite-${key}.tar`);
  if (existsSync(file)) return file;
  const db = await openPglite(undefined, from ? new Blob([readFileSync(from)]) : undefined);
  await prepare(db);
  // Written whole under another name first: passes starting at once may each make one.
  const partial = `${file}.${process.pid}`;
  writeFileSync(partial, Buffer.from(await (await db.dump()).arrayBuffer()));
  renameSync(partial, file);
  await db.close();
  return file;
}
