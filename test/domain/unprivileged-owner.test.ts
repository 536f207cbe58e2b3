import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '../../src/server/db/migrate';
import { openPostgres } from '../../src/server/db/postgres';
import { createOwnerRole, TEST_DB } from '../helpers/database';
import { startTestServer, type TestServer } from '../helpers/server';
import { createTestUser, GALA_KEY, TOWN_STAR } from '../helpers/users';

/**
 * The server need not be a superuser: a database administrator makes the owner role, its
 * database and the API roles once (docs/security.md), and the server migrates and serves as the
 * owner. Only PostgreSQL has roles to speak of; the embedded database is the server's own.
 */
describe.skipIf(TEST_DB === 'pglite')('the server as an ordinary owner role on PostgreSQL', () => {
  let owner: string;
  let dropOwner = async () => {};
  let s: TestServer;

  beforeAll(async () => {
    const prepared = await createOwnerRole();
    ({ owner } = prepared);
    dropOwner = prepared.drop;
    const db = await openPostgres(prepared.url, 5);
    await migrate(db, { platform: true });
    s = await startTestServer({}, { database: { db, url: prepared.url, drop: async () => {} } });
  });

  afterAll(async () => {
    await s?.stop();
    await dropOwner();
  });

  it('migrates and serves a customer without superuser rights, and cannot grant itself any', async () => {
    const { rows } = await s.deps.db.query<{ rolsuper: boolean; rolbypassrls: boolean; rolcreaterole: boolean }>(
      'select rolsuper, rolbypassrls, rolcreaterole from pg_roles where rolname = current_user',
    );
    expect(rows).toEqual([{ rolsuper: false, rolbypassrls: false, rolcreaterole: false }]);
    await expect(s.deps.db.query(`alter role ${owner} superuser`)).rejects.toThrow(/must be superuser/);

    const user = await createTestUser(s, { credits: 20 });
    const created = await user.client.rpc('create_service_securely', {
      p_name: 'owner-node',
      p_description: null,
      p_api_key: GALA_KEY,
      p_product_id: TOWN_STAR,
    });
    expect(created.error).toBeNull();
    const { data } = await user.client.from('services').select('name, api_key');
    expect(data).toEqual([{ name: 'owner-node', api_key: GALA_KEY }]);
  });
});
