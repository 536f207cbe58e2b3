import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../src/server/db/database';
import { classifyDbFailure } from '../src/server/db/db-failure';
import { migrate } from '../src/server/db/migrate';
import { openPostgres } from '../src/server/db/postgres';
import { createPostgresDatabase, TEST_DB } from './helpers/database';

// A statement's client-side deadline on PostgreSQL (issue 33, item 10): past it the statement
// fails as an outage (503) and its connection is destroyed, never given back to the pool. Here the
// deadline is shorter than a statement that sleeps; test/faults/database-stall.test.ts pauses the
// whole database instead.

/** The pool's deadline, and statements that outlast it; the rest get a longer one of their own (Deadlines.queryMs), so that a loaded machine fails none. */
const DEADLINE_MS = 1_000;
const SLEEP = 'select pg_sleep(1.5)';
const AMPLE_MS = 30_000;

describe.skipIf(TEST_DB === 'pglite')("PostgreSQL's client-side statement deadline", () => {
  let scratch: Awaited<ReturnType<typeof createPostgresDatabase>>;
  let db: Database;
  beforeAll(async () => {
    scratch = await createPostgresDatabase('nh_deadline');
    // One connection: the statement after a timed-out one shows whether it was reused.
    db = await openPostgres(scratch.url, 1, { queryTimeoutMs: DEADLINE_MS });
  });
  afterAll(async () => {
    await db.close();
    await scratch.drop();
  });

  const backend = async () => (await db.transaction((tx) => tx.query<{ pid: number }>('select pg_backend_pid() as pid'), { queryMs: AMPLE_MS })).rows[0]!.pid;
  const failure = (p: Promise<unknown>) =>
    p.then(
      () => undefined,
      (e: unknown) => e,
    );

  it('fails a statement, a transaction and a batch past the deadline with a 503, on a new connection each time', async () => {
    for (const run of [() => db.query(SLEEP), () => db.transaction((tx) => tx.query(SLEEP)), () => db.batch([{ sql: SLEEP, params: [] }])]) {
      const before = await backend();
      const e = await failure(run());
      expect(classifyDbFailure(e)).toMatchObject({ kind: 'unavailable', status: 503, code: 'PGRST001' });
      expect(e).toMatchObject({ code: 'query_timeout' });
      // Destroyed, not reused: the next statement runs on another server process.
      expect(await backend()).not.toBe(before);
    }
  });

  it("gives a transaction's and a batch's statements their own deadline, and migrations a long one", async () => {
    const slow = { sql: 'select 1 as v from pg_sleep(1.5)', params: [] };
    expect((await db.transaction((tx) => tx.query(slow.sql), { queryMs: AMPLE_MS })).rows).toEqual([{ v: 1 }]);
    expect((await db.batch([slow], { queryMs: AMPLE_MS }))[0]!.rows).toEqual([{ v: 1 }]);
    expect(await failure(db.batch([slow], { queryMs: 200 }))).toMatchObject({ code: 'query_timeout' });
    expect(await failure(db.transaction((tx) => tx.query(SLEEP), { queryMs: 200 }))).toMatchObject({ code: 'query_timeout' });

    const dir = mkdtempSync(join(tmpdir(), 'nh-slow-migration-'));
    try {
      mkdirSync(join(dir, 'migrations'));
      writeFileSync(join(dir, 'migrations', '0001_slow.sql'), 'select pg_sleep(1.5);\ncreate table public.slow (id int);\n');
      expect(await migrate(db, { platform: false, dir })).toEqual(['migrations/0001_slow.sql']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
