import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import type { Database } from '../../src/server/db/database';
import { migrate } from '../../src/server/db/migrate';
import { openPostgres } from '../../src/server/db/postgres';
import { createPostgresDatabase, emptyPglite, TEST_DB } from '../helpers/database';

// Migration 0041 on a database that already watches nodes: what it fills in for the rows it finds.

const DB_DIR = join(import.meta.dirname, '../../db');
const dir = mkdtempSync(join(tmpdir(), 'nh-0041-'));
let close = async () => {};
afterAll(async () => {
  await close();
  rmSync(dir, { recursive: true, force: true });
});

/** db/ with the migrations numbered below `next`. */
function migrationsBefore(next: string) {
  rmSync(join(dir, 'migrations'), { recursive: true, force: true });
  mkdirSync(join(dir, 'migrations'));
  cpSync(join(DB_DIR, 'platform'), join(dir, 'platform'), { recursive: true });
  for (const f of readdirSync(join(DB_DIR, 'migrations')).filter((f) => f < next)) cpSync(join(DB_DIR, 'migrations', f), join(dir, 'migrations', f));
}

async function emptyDatabase(): Promise<Database> {
  if (TEST_DB === 'pglite') return emptyPglite();
  const scratch = await createPostgresDatabase('nh_0041');
  const db = await openPostgres(scratch.url, 2);
  close = async () => {
    await db.close();
    await scratch.drop();
  };
  return db;
}

it('gives a node online before it the streak of its run since it last came online or restarted, and Town Star its 5-minute alert', async () => {
  const db = await emptyDatabase();
  if (TEST_DB === 'pglite') close = () => db.close();
  migrationsBefore('0041');
  await migrate(db, { platform: true, dir });
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

  migrationsBefore('9999');
  expect(await migrate(db, { platform: true, dir })).toEqual(['migrations/0041_reward_rules.sql']);
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
