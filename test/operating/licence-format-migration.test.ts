import { rmSync } from 'node:fs';
import { afterAll, expect, it } from 'vitest';
import { migrate } from '../../src/server/db/migrate';
import { emptyTestDatabase, migrationsBefore } from '../helpers/database';

// Migration 0042 on a database seeded before it: the Master Node's rule as seeded takes Playa3ull's
// form, and a rule an admin has edited is left as the admin made it.

const SEEDED =
  '{"data_name":"Master Node License Key","data_description":"The licence key contains only letters, digits and hyphens","data_validation":{"minimum_length":20,"maximum_length":64,"valid_chars":"A-Za-z0-9-"}}';
const EDITED = '{"data_name":"Master Node License Key","data_validation":{"minimum_length":30}}';

let drop = async () => {};
afterAll(() => drop());

it("gives the seeded Master Node rule Playa3ull's form and keeps an admin's own rule", async () => {
  const empty = await emptyTestDatabase('nh_0042');
  const { db } = empty;
  drop = async () => {
    await db.close();
    await empty.drop();
  };
  const dir = migrationsBefore('0042');
  await migrate(db, { platform: true, dir });
  rmSync(dir, { recursive: true, force: true });
  const product = (id: string, properties: string) =>
    db.query(`insert into public.products (id, name, price, base_product_code, properties) values ($1, 'Master Node', 3, 'MASTERNODE', $2)`, [id, properties]);
  const seeded = '00000000-0000-4000-8000-000000000003';
  const edited = '00000000-0000-4000-8000-0000000000e3';
  await product(seeded, SEEDED);
  await product(edited, EDITED);
  const keyError = async (id: string, key: string) =>
    (await db.query<{ problem: string | null }>(`select private.api_key_error($1, properties) as problem from public.products where id = $2`, [key, id]))
      .rows[0]!.problem;
  expect(await keyError(seeded, 'MN-1234-5678-ABCD-EFGH')).toBeNull();

  // Later migrations follow it.
  expect((await migrate(db, { platform: true }))[0]).toBe('migrations/0042_licence_keys_in_their_vendors_form.sql');
  expect(await keyError(seeded, 'MN-1234-5678-ABCD-EFGH')).toBe('License key must have the form ############-####-####-####-############');
  expect(await keyError(seeded, 'MN0123456789-1234-5678-ABCD-01234567EFGH')).toBeNull();
  expect((await db.query(`select properties from public.products where id = $1`, [edited])).rows[0]).toEqual({ properties: EDITED });
  expect(await keyError(edited, 'MN-1234-5678-ABCD-EFGH')).toBe('License key must be at least 30 characters long');
});
