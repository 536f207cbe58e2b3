import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import type { Database } from '../../src/server/db/database';
import { migrate } from '../../src/server/db/migrate';
import { seed } from '../../src/server/db/seed';
import { DB_DIR } from '../../src/server/paths';
import { createTestDatabase, emptyTestDatabase, migrationsBefore } from '../helpers/database';
import { MASTER_NODE, TOWN_STAR, TOWN_STAR_QUARTERLY } from '../helpers/users';

// Migration 0044 on a database seeded before it: the seeded Town Star plans move from Hetzner's
// retired cx22 to cx23 and get cx23's cost, a server type an operator chose stays (and gets no
// cost, which was cx23's), and the rows end as a fresh database's, whose seed does the same.

const drops: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const drop of drops) await drop();
});

/** The products' servers and their costs, as both databases must end. */
const rows = async (db: Database) => ({
  products: (
    await db.query<{ id: string; node_driver: string; machine_server_type: string | null }>(
      `select id, node_driver, machine_server_type from public.products order by id`,
    )
  ).rows,
  costs: (
    await db.query<{ product_id: string; monthly_cost_usd: string; basis: string }>(
      `select product_id, monthly_cost_usd, basis from private.product_costs order by product_id`,
    )
  ).rows,
});

it("moves the seeded Town Star plans to cx23 with its cost, keeps an operator's server type, and ends as a fresh database", { timeout: 120_000 }, async () => {
  const empty = await emptyTestDatabase('nh_0044');
  const { db } = empty;
  drops.push(async () => {
    await db.close();
    await empty.drop();
  });
  const dir = migrationsBefore('0044');
  await migrate(db, { platform: true, dir });
  rmSync(dir, { recursive: true, force: true });
  // The seed as 0043 left it (cx22), then the operator's own choice for the quarterly plan.
  await db.exec(readFileSync(join(DB_DIR, 'seed', '0001_products.sql'), 'utf8').replaceAll("'cx23'", "'cx22'"));
  await db.query(`update public.products set machine_server_type = 'cx32' where id = $1`, [TOWN_STAR_QUARTERLY]);

  // Later migrations follow it; then the start's seed.
  expect((await migrate(db, { platform: true }))[0]).toBe('migrations/0044_the_margin_of_a_node.sql');
  await seed(db);
  const upgraded = await rows(db);
  const basis =
    "Hetzner Cloud cx23: EUR 4.11 a month before VAT (prices of 1 April 2026, docs.cnap.tech/compute/providers/hetzner), at USD 1.17 per euro; check the console for today's price";
  expect(upgraded).toEqual({
    products: [
      { id: TOWN_STAR, node_driver: 'machine', machine_server_type: 'cx23' },
      { id: TOWN_STAR_QUARTERLY, node_driver: 'machine', machine_server_type: 'cx32' },
      { id: MASTER_NODE, node_driver: 'swarm', machine_server_type: null },
    ],
    costs: [{ product_id: TOWN_STAR, monthly_cost_usd: '4.81', basis }],
  });

  // A fresh database, migrated then seeded as a first start does: the same rows, but for the
  // quarterly plan that no operator touched there.
  const fresh = await createTestDatabase();
  drops.push(async () => {
    await fresh.db.close();
    await fresh.drop();
  });
  await seed(fresh.db);
  const first = await rows(fresh.db);
  expect(first.products).toEqual(upgraded.products.map((p) => (p.id === TOWN_STAR_QUARTERLY ? { ...p, machine_server_type: 'cx23' } : p)));
  expect(first.costs).toEqual([...upgraded.costs, { product_id: TOWN_STAR_QUARTERLY, monthly_cost_usd: '4.81', basis }]);

  // Seeding again on every start changes nothing, and keeps a cost the operator recorded.
  await db.query(`update private.product_costs set monthly_cost_usd = 5.02, basis = 'cx23 at EUR 4.29' where product_id = $1`, [TOWN_STAR]);
  await seed(db);
  expect((await rows(db)).costs).toEqual([{ product_id: TOWN_STAR, monthly_cost_usd: '5.02', basis: 'cx23 at EUR 4.29' }]);
});
