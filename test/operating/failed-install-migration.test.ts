import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { afterAll, expect, it } from 'vitest';
import { createUser } from '../../src/server/auth/users';
import type { Database } from '../../src/server/db/database';
import { migrate } from '../../src/server/db/migrate';
import { seed } from '../../src/server/db/seed';
import { failedInstallTexts } from '../../src/shared/failed-install';
import { emptyTestDatabase, migrationsBefore } from '../helpers/database';
import { expectLedgerBalanced } from '../helpers/ledger';
import { TOWN_STAR } from '../helpers/users';

// Migration 0050 on a database with services under way: an order still installing has its charge
// noted (a failure from now on gives it back); one already failed that never ran gets its charge
// back at once; one that ran before, and a reused purchased service, keep the period they hold.

const drops: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const drop of drops) await drop();
});

/** A Town Star order as create_service_securely left it before 0050: charged $10, installing, its request recorded. */
async function order(db: Database, userId: string, name: string, opts: { reused?: boolean; ran?: boolean } = {}): Promise<string> {
  const id = randomUUID();
  await db.query(`select private.post_transaction($1, -10, 'service_charge', $2, $3, $4)`, [
    userId,
    `Service creation for ${name} (Town Star)`,
    id,
    `service-create:${id}`,
  ]);
  await db.query(
    `insert into private.services (id, user_id, name, api_key_encrypted, product_id, renews_at) values ($1, $2, $3, '\\x00', $4, now() + interval '1 month')`,
    [id, userId, name, TOWN_STAR],
  );
  await db.query(`select private.record_service_event($1, 'install_requested', '{"reused": false}')`, [id]);
  if (opts.ran) await db.query(`select private.record_service_event($1, 'installed')`, [id]);
  if (opts.reused) await db.query(`select private.record_service_event($1, 'install_requested', '{"reused": true}')`, [id]);
  return id;
}

it('gives back the charge of a failed installation that never ran, notes an installing one, and leaves the rest', { timeout: 120_000 }, async () => {
  const empty = await emptyTestDatabase('nh_0050');
  const { db } = empty;
  drops.push(async () => {
    await db.close();
    await empty.drop();
  });
  const dir = migrationsBefore('0050');
  await migrate(db, { platform: true, dir });
  rmSync(dir, { recursive: true, force: true });
  await seed(db);
  const user = await createUser(db, { email: 'upgraded@nodeharbor.test', password: 'correct-horse-battery' });
  await db.query(`select private.post_transaction($1, 50, 'admin_credit', 'Credit', null, 'credit-1')`, [user.id]);
  const failed = await order(db, user.id, 'never-ran');
  const installing = await order(db, user.id, 'installing');
  const ranBefore = await order(db, user.id, 'ran-before', { ran: true });
  const reused = await order(db, user.id, 'reused', { reused: true });
  await db.query(`update private.services set state = 'failed', provisioning_error = 'No such image: x' where id = any($1::uuid[])`, [
    [failed, ranBefore, reused],
  ]);

  const applied = await migrate(db, { platform: true });
  expect(applied[0]).toBe('migrations/0050_money_that_explains_itself.sql');

  const { rows } = await db.query<{ name: string; charged: boolean; refunded: boolean; period_left: boolean }>(
    `select name, install_charge_id is not null as charged, install_refund_id is not null as refunded, renews_at > now() as period_left
       from private.services where user_id = $1 order by name`,
    [user.id],
  );
  expect(rows).toEqual([
    { name: 'installing', charged: true, refunded: false, period_left: true },
    { name: 'never-ran', charged: false, refunded: true, period_left: false },
    { name: 'ran-before', charged: false, refunded: false, period_left: true },
    { name: 'reused', charged: false, refunded: false, period_left: true },
  ]);
  const refunds = await db.query<{ description: string; amount: string }>(
    `select description, amount::text from public.credit_transactions where user_id = $1 and type = 'refund'`,
    [user.id],
  );
  expect(refunds.rows).toEqual([{ description: failedInstallTexts.refundDescription('never-ran'), amount: '10.00' }]);
  expect((await db.query<{ balance: string }>('select balance::text from public.user_credits where user_id = $1', [user.id])).rows).toEqual([
    { balance: '20.00' },
  ]);
  await expectLedgerBalanced(db);

  // The one still installing gives its charge back if it fails now, once.
  await db.query(`select private.fail_service_installation($1, 'No such image: x')`, [installing]);
  await db.query(`select private.fail_service_installation($1, 'No such image: x')`, [installing]);
  expect((await db.query<{ balance: string }>('select balance::text from public.user_credits where user_id = $1', [user.id])).rows).toEqual([
    { balance: '30.00' },
  ]);
  await expectLedgerBalanced(db);
});
