import pg from 'pg';
import { migrate } from '../../src/server/db/migrate';
import { openPostgres } from '../../src/server/db/postgres';
import { TEST_DATABASE_URL } from './database';

/** Runs `fn` on a superuser connection to the test PostgreSQL's maintenance database. */
async function asSuperuser<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

/**
 * The test PostgreSQL's migrated template `name` (named after the SQL files' hash), made when it
 * is missing: built under another name and renamed when whole, under an advisory lock, so that
 * passes starting at once build it once and never clone half of one. Templates of older SQL are
 * dropped on the way. It accepts no connections: a database can be cloned only while none is open.
 */
export async function migratedTemplate(name: string): Promise<string> {
  await asSuperuser(async (c) => {
    await c.query(`select pg_advisory_lock(hashtext('nodeharbor test template'))`);
    try {
      const { rows } = await c.query<{ datname: string }>(`select datname from pg_database where datname like 'nh\\_template\\_%'`);
      if (rows.some((r) => r.datname === name)) return;
      for (const old of rows) {
        // PostgreSQL refuses to drop a database marked as a template (42809).
        await c.query(`alter database ${old.datname} with is_template false`);
        await c.query(`drop database if exists ${old.datname} with (force)`);
      }
      const building = `${name}_building`;
      await c.query(`drop database if exists ${building} with (force)`);
      await c.query(`create database ${building}`);
      const url = new URL(TEST_DATABASE_URL);
      url.pathname = `/${building}`;
      const db = await openPostgres(url.toString(), 2);
      try {
        await migrate(db, { platform: true });
      } finally {
        await db.close();
      }
      await c.query(`alter database ${building} rename to ${name}`);
      await c.query(`alter database ${name} with is_template true allow_connections false`);
    } finally {
      await c.query(`select pg_advisory_unlock(hashtext('nodeharbor test template'))`);
    }
  });
  return name;
}
