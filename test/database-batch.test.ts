import { Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { isDbError } from '../src/server/db/database';
import { openPostgres } from '../src/server/db/postgres';
import { createTestDatabase, TEST_DB, type TestDatabase } from './helpers/database';

// Database.batch: a request's claims and statement in one transaction, which on PostgreSQL is one
// pipelined round trip of prepared statements (decision 007).
let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
  await t.db.exec('create table public.batch_rows (v text not null)');
});
afterAll(async () => {
  await t.db.close();
  await t.drop();
});

const rows = async () => (await t.db.query<{ v: string }>('select v from public.batch_rows order by v')).rows.map((r) => r.v);

it('runs the statements in order in one transaction and returns each one’s result', async () => {
  const [set, read] = await t.db.batch([
    { sql: `select set_config('request.batch', $1, true)`, params: ['seen'] },
    { sql: `select current_setting('request.batch') as v, $1::int + 1 as n`, params: [41] },
  ]);
  expect(set!.rows).toEqual([{ set_config: 'seen' }]);
  expect(read!.rows).toEqual([{ v: 'seen', n: 42 }]);
  // The setting was local to that transaction.
  expect((await t.db.query(`select current_setting('request.batch', true) as v`)).rows).toEqual([{ v: '' }]);
});

it('rolls the whole transaction back on a failing statement, with PostgreSQL’s error, and every connection stays usable', async () => {
  // More rounds than the pool has connections, so each one goes through the failure.
  for (let i = 0; i < 12; i++) {
    const failed = await t.db
      .batch([
        { sql: 'insert into public.batch_rows (v) values ($1)', params: [`lost-${i}`] },
        { sql: 'select 1 / $1::int', params: [0] },
        { sql: 'insert into public.batch_rows (v) values ($1)', params: [`after-${i}`] },
      ])
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect(isDbError(failed) && failed.code).toBe('22012');
  }
  expect(await rows()).toEqual([]);
  await t.db.batch([{ sql: 'insert into public.batch_rows (v) values ($1)', params: ['kept'] }]);
  expect(await rows()).toEqual(['kept']);
});

it('binds every value as it is: quotes, backslashes and SQL stay text, U+0000 gets PostgreSQL’s refusal', async () => {
  const hostile = `it's \\' ); drop table public.batch_rows; --`;
  const [echo] = await t.db.batch([{ sql: 'select $1::text as v', params: [hostile] }]);
  expect(echo!.rows).toEqual([{ v: hostile }]);
  const refused = await t.db.batch([{ sql: 'insert into public.batch_rows (v) values ($1)', params: ['a\u0000b'] }]).then(
    () => null,
    (e: unknown) => e,
  );
  expect(isDbError(refused) && refused.code).toBe('22021');
  expect(await rows()).toEqual(['kept']);
});

describe.runIf(TEST_DB === 'postgres')('prepared statements on PostgreSQL', () => {
  it('sends a batch in one write: pg writes each message on its own, the corked socket gathers them', async () => {
    const one = await openPostgres(t.url!, 1);
    // Every write that leaves a socket: one call per write uncorked, one _writev for a corked run.
    const writes = [vi.spyOn(Socket.prototype, '_write'), vi.spyOn(Socket.prototype, '_writev')];
    const sent = () => writes.reduce((n, w) => n + w.mock.calls.length, 0);
    try {
      const statements = [
        { sql: `select set_config('request.batch', $1, true)`, params: ['seen'] },
        { sql: 'select $1::int + 1 as n', params: [41] },
      ];
      // The first prepares the statements; the second runs them as a request does.
      await one.batch(statements);
      writes.forEach((w) => w.mockClear());
      const [, read] = await one.batch(statements);
      expect(read!.rows).toEqual([{ n: 42 }]);
      expect(sent()).toBe(1);
    } finally {
      writes.forEach((w) => w.mockRestore());
      await one.close();
    }
  });

  it('prepares a statement once per connection, and replaces a connection that has prepared too many', async () => {
    const one = await openPostgres(t.url!, 1);
    try {
      const pid = async () => (await one.batch([{ sql: 'select pg_backend_pid() as pid', params: [] }]))[0]!.rows[0]!.pid;
      const preparedCount = async () => Number((await one.batch([{ sql: 'select count(*) as n from pg_prepared_statements', params: [] }]))[0]!.rows[0]!.n);
      const first = await pid();
      await pid();
      expect(await preparedCount()).toBe(2);
      for (let i = 0; i < 500; i++) await one.batch([{ sql: `select $1::int + ${i} as n`, params: [1] }]);
      expect(await pid()).not.toBe(first);
      expect(await preparedCount()).toBeLessThan(5);
    } finally {
      await one.close();
    }
  });
});
