import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server';
import { until } from '../helpers/wait';

/**
 * Issue 33, item 8: a name the last catalogue load did not know (a misspelled table) is answered
 * at once from that load, and the catalogue is read again in the background; the caller never
 * waits for a load, which starts at most once a second. Here every catalogue load is held until
 * the test lets it go: a request that waited for one would not be answered while it is held.
 */
describe('the schema cache', () => {
  let s: TestServer;
  let held: (() => void)[];
  let loads: number;
  beforeAll(async () => {
    s = await startTestServer();
    // The first load, which every request needs, before any is held.
    expect((await s.client().from('products').select('id').limit(1)).status).toBe(200);
    const db = s.deps.db;
    const query = db.query.bind(db);
    held = [];
    loads = 0;
    db.query = (async (sql: string, ...more: unknown[]) => {
      if (sql.includes('from pg_class c')) {
        loads += 1;
        await new Promise<void>((release) => held.push(release));
      }
      return (query as (...a: unknown[]) => unknown)(sql, ...more);
    }) as typeof db.query;
  });
  afterAll(async () => {
    for (const release of held) release();
    await s.stop();
  });

  it('answers an unknown table with 404 PGRST205 without waiting for the reload it starts, and then knows a new table', async () => {
    await s.deps.db.exec(`create table public.arrived_later (id int primary key); grant select on public.arrived_later to anon`);
    const before = loads;
    // Answered while no catalogue load can finish.
    const misspelled = await s.client().from('prodcts').select('id');
    expect([misspelled.status, misspelled.error?.code]).toEqual([404, 'PGRST205']);
    const unseen = await s.client().from('arrived_later').select('id');
    expect([unseen.status, unseen.error?.code]).toEqual([404, 'PGRST205']);
    const column = await s.client().from('products').select('no_such_column');
    expect(column.status).toBe(400);
    // A known table is served from the cache meanwhile.
    expect((await s.client().from('products').select('id').limit(1)).status).toBe(200);
    // The misses started a load in the background, one for all of them; once it is let go, the new table is known.
    await until('a catalogue load to start', () => loads > before, 10_000);
    for (const release of held.splice(0)) release();
    await until('the new table to be served', async () => (await s.client().from('arrived_later').select('id')).status === 200, 10_000);
  });
});
