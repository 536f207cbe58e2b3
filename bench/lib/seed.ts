import type { Database, Queryable } from '../../src/server/db/database';
import { hashPassword } from '../../src/server/auth/passwords';

export const PASSWORD = 'correct-horse-battery';
export const TOWN_STAR = '00000000-0000-4000-8000-000000000001';
export const GALA_KEY = `${'A'.repeat(43)}=`;
/** Services of the case-1 user: a customer with a handful of nodes. */
export const READER_SERVICES = 5;
export const CREATORS = 16;
export const REFRESHERS = 64;

/** The users who act in the cases; the scale data (below) is everyone else. */
export type Actors = { admin: string; reader: string; signer: string; creators: string[]; refreshers: string[] };

export const actors: Actors = {
  admin: 'admin@actors.bench',
  reader: 'reader@actors.bench',
  /** Case 8 signs in as this user, again and again. */
  signer: 'signer@actors.bench',
  creators: Array.from({ length: CREATORS }, (_, i) => `creator-${i}@actors.bench`),
  refreshers: Array.from({ length: REFRESHERS }, (_, i) => `refresher-${i}@actors.bench`),
};

/**
 * Users as createUser writes them (user and email identity; the trigger adds profile and balance),
 * `$1` e-mails at once, all with the one bcrypt hash `$2`: hashing each would only slow the seeding.
 */
const INSERT_USERS = `
  with u as (
    insert into auth.users (email, encrypted_password, email_confirmed_at, raw_app_meta_data, raw_user_meta_data, created_at, last_sign_in_at)
    select e.email, $2, now(), '{"provider":"email","providers":["email"]}'::jsonb,
           jsonb_build_object('full_name', split_part(e.email, '@', 1), 'email_verified', true),
           now() - make_interval(mins => e.age), now() - make_interval(mins => e.age / 2)
      from jsonb_to_recordset($1::jsonb) as e(email text, age int)
    returning id, email
  )
  insert into auth.identities (provider_id, user_id, provider, identity_data)
  select u.id::text, u.id, 'email', jsonb_build_object('sub', u.id::text, 'email', u.email, 'email_verified', true, 'phone_verified', false)
    from u`;

/** One stored API key, encrypted once: every seeded row holds a real ciphertext of the same size. */
const KEY = `(select private.encrypt_api_key('${GALA_KEY}') as key)`;

export async function seedActors(db: Database): Promise<void> {
  const hash = await hashPassword(PASSWORD);
  const emails = [actors.admin, actors.reader, actors.signer, ...actors.creators, ...actors.refreshers];
  await db.query(INSERT_USERS, [JSON.stringify(emails.map((email) => ({ email, age: 0 }))), hash]);
  await db.query(`insert into public.admin_users (user_id) select id from auth.users where email = $1`, [actors.admin]);
  // Enough credit for every creation the cases can make, through the ledger like any credit.
  await db.query(
    `select private.post_transaction(id, 1000000, 'admin_credit', 'Bench credit', null, 'bench:' || id)
       from auth.users where email like 'creator-%@actors.bench'`,
  );
  await db.query(
    `insert into private.services (user_id, name, api_key_encrypted, product_id, created_at, renews_at, state, unbilled_since)
     select u.id, 'node-' || g, k.key, '${TOWN_STAR}', now() - make_interval(days => g), now() + interval '20 days', 'active', null
       from auth.users u, generate_series(1, ${READER_SERVICES}) g, ${KEY} k
      where u.email = $1`,
    [actors.reader],
  );
}

/** How many users and services the scale data has now (actors not counted). */
export async function scaleSize(db: Queryable): Promise<{ users: number; services: number }> {
  const { rows } = await db.query<{ users: number; services: number }>(
    `select (select count(*) from auth.users where email like '%@scale.bench') as users,
            (select count(*) from private.services where name like 's%') as services`,
  );
  return rows[0]!;
}

/**
 * Grows the scale data to `users` users and `services` services (never shrinks it), with
 * generate_series in SQL. Service g belongs to user g mod users; one in ten is deleted, as a
 * history of customers coming and going leaves them.
 */
export async function growScale(db: Database, users: number, services: number): Promise<void> {
  const now = await scaleSize(db);
  const hash = (await db.query<{ h: string }>(`select encrypted_password as h from auth.users where email = $1`, [actors.admin])).rows[0]!.h;
  for (let from = now.users; from < users; from += 10_000) {
    const batch = Array.from({ length: Math.min(10_000, users - from) }, (_, i) => ({ email: `u${from + i + 1}@scale.bench`, age: from + i + 1 }));
    await db.query(INSERT_USERS, [JSON.stringify(batch), hash]);
  }
  for (let from = now.services; from < services; from += 100_000) {
    const to = Math.min(from + 100_000, services);
    await db.query(
      `insert into private.services (user_id, name, api_key_encrypted, product_id, created_at, renews_at, state, unbilled_since)
       select u.id, 's' || g, k.key, '${TOWN_STAR}', now() - make_interval(mins => g), now() + make_interval(days => g % 30),
              case when g % 10 = 0 then 'deleted' else 'active' end::public.service_state, null
         from generate_series($1::int + 1, $2::int) g
         join auth.users u on u.email = 'u' || (g % $3::int + 1) || '@scale.bench'
         cross join ${KEY} k`,
      [from, to, users],
    );
  }
  // Vacuumed, analysed and checkpointed: otherwise autovacuum, the first readers (setting hint
  // bits) and a checkpoint forced by the bulk load's WAL work through the new rows during the
  // next measurement, which then times them, not the server.
  await db.exec('vacuum analyze');
  await db.exec('checkpoint');
}

/** Deletes what case 3 created, so that every run and size starts from the same rows. */
export async function deleteCreatedServices(db: Database): Promise<void> {
  await db.query(`delete from private.services where user_id in (select id from auth.users where email like 'creator-%@actors.bench')`);
  await db.query(`delete from nodeharbor.jobs where task = 'install-service'`);
}
