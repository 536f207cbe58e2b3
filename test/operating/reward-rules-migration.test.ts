import { rmSync } from 'node:fs';
import { afterAll, expect, it } from 'vitest';
import { migrate } from '../../src/server/db/migrate';
import { emptyTestDatabase, migrationsBefore } from '../helpers/database';

// Migration 0041 on a database that already watches nodes: what it fills in for the rows it finds.

let drop = async () => {};
afterAll(() => drop());

it('gives a node online before it the streak of its run since it last came online or restarted, and Town Star its 5-minute alert', async () => {
  const empty = await emptyTestDatabase('nh_0041');
  const { db } = empty;
  drop = async () => {
    await db.close();
    await empty.drop();
  };
  const dir = migrationsBefore('0041');
  await migrate(db, { platform: true, dir });
  rmSync(dir, { recursive: true, force: true });
  const one = async <T>(sql: string, params: unknown[] = []) => (await db.query<T>(sql, params)).rows[0]!;
  const user = await one<{ id: string }>(`insert into auth.users (email) values ('streak@nodeharbor.test') returning id`);
  const town = await one<{ id: string }>(`insert into public.products (name, price, base_product_code) values ('Town Star', 10, 'TOWNSTAR') returning id`);
  const master = await one<{ id: string }>(
    `insert into public.products (name, price, base_product_code, uptime_threshold_seconds) values ('Master Node', 3, 'MASTERNODE', 28800) returning id`,
  );
  const service = async (name: string, state: string, at: string) => {
    const { id } = await one<{ id: string }>(
      `insert into private.services (user_id, name, api_key_encrypted, product_id, state, renews_at)
       values ($1, $2, '\\x00', $3, 'active', now() + interval '30 days') returning id`,
      [user.id, name, town.id],
    );
    await db.query(`insert into private.node_status (service_id, state, changed_at) values ($1, $2, now() - $3::interval)`, [id, state, at]);
    return id;
  };
  const event = (id: string, event: string, ago: string) =>
    db.query(`insert into public.service_events (service_id, user_id, event, created_at) values ($1, $2, $3, now() - $4::interval)`, [id, user.id, event, ago]);
  // Online since 3 hours, restarted 1 hour ago; online with no event kept; offline.
  const restarted = await service('restarted', 'online', '5 minutes');
  await event(restarted, 'node_online', '3 hours');
  await event(restarted, 'node_restarted', '1 hour');
  const quiet = await service('quiet', 'online', '2 hours');
  const down = await service('down', 'offline', '10 minutes');
  await event(down, 'node_online', '4 hours');

  // Later migrations follow it.
  expect((await migrate(db, { platform: true }))[0]).toBe('migrations/0041_reward_rules.sql');
  const since = async (id: string) =>
    (
      await one<{ hours: number | null }>(`select extract(epoch from now() - online_since) / 3600 as hours from private.node_status where service_id = $1`, [
        id,
      ])
    ).hours;
  expect(await since(restarted)).toBeCloseTo(1, 2);
  expect(await since(quiet)).toBeCloseTo(2, 2);
  expect(await since(down)).toBeNull();
  expect(await one(`select reward_rule, down_alert_minutes from public.products where id = $1`, [town.id])).toEqual({
    reward_rule: 'continuous',
    down_alert_minutes: 5,
  });
  expect(await one(`select reward_rule, down_alert_minutes from public.products where id = $1`, [master.id])).toEqual({
    reward_rule: 'daily_threshold',
    down_alert_minutes: null,
  });
});
