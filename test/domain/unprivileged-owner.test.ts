import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '../../src/server/db/migrate';
import { openPostgres } from '../../src/server/db/postgres';
import { TEST_DATABASE_URL, TEST_DB } from '../helpers/database';
import { startTestServer, type TestServer } from '../helpers/server';
import { createTestUser, GALA_KEY, TOWN_STAR } from '../helpers/users';

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
 * The server need not be a superuser: a database administrator makes the owner role, its
 * database and the API roles once (docs/security.md), and the server migrates and serves as the
 * owner. Only PostgreSQL has roles to speak of; the embedded database is the server's own.
 */
describe.skipIf(TEST_DB === 'pglite')('the server as an ordinary owner role on PostgreSQL', () => {
  const owner = `nh_owner_${randomBytes(5).toString('hex')}`;
  let s: TestServer;

  beforeAll(async () => {
    await asSuperuser(`create role ${owner} login nosuperuser nocreaterole nocreatedb`);
    await asSuperuser(`create database ${owner} owner ${owner}`);
    await asSuperuser(`grant anon, authenticated, service_role to ${owner}`);
    const url = new URL(TEST_DATABASE_URL);
    url.username = owner;
    url.pathname = `/${owner}`;
    const db = await openPostgres(url.toString(), 5);
    await migrate(db, { platform: true });
    s = await startTestServer({}, { database: { db, url: url.toString(), drop: async () => {} } });
  });

  afterAll(async () => {
    await s?.stop();
    await asSuperuser(`drop database if exists ${owner} with (force)`);
    await asSuperuser(`drop role if exists ${owner}`);
  });

  it('migrates and serves a customer without superuser rights, and cannot grant itself any', async () => {
    const { rows } = await s.deps.db.query<{ rolsuper: boolean; rolbypassrls: boolean; rolcreaterole: boolean }>(
      'select rolsuper, rolbypassrls, rolcreaterole from pg_roles where rolname = current_user',
    );
    expect(rows).toEqual([{ rolsuper: false, rolbypassrls: false, rolcreaterole: false }]);
    await expect(s.deps.db.query(`alter role ${owner} superuser`)).rejects.toThrow(/must be superuser/);

    const user = await createTestUser(s, { credits: 20 });
    const created = await user.client.rpc('create_service_securely', {
      p_name: 'owner-node', p_description: null, p_api_key: GALA_KEY, p_product_id: TOWN_STAR,
    });
    expect(created.error).toBeNull();
    const { data } = await user.client.from('services').select('name, api_key');
    expect(data).toEqual([{ name: 'owner-node', api_key: GALA_KEY }]);
  });
});
