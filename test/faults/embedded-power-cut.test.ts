import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { afterAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/server/db/database';
import { openPglite } from '../../src/server/db/pglite';
import { followOntoDisk } from './crash-disk';

// The embedded default only: a PostgreSQL server's durability is PostgreSQL's own.
const embedded = process.env.TEST_DB !== 'postgres';
const scratch = mkdtempSync(join(tmpdir(), 'nh-power-cut-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** PGlite as it comes: fsync off, and no fsync in its NODEFS. */
async function openAsShipped(dir: string): Promise<Pick<Database, 'query' | 'exec' | 'close'>> {
  const pg = await PGlite.create({ dataDir: join(dir, 'pglite') });
  return { query: (sql, params) => pg.query(sql, params ? [...params] : []) as never, exec: async (sql) => void (await pg.exec(sql)), close: () => pg.close() };
}

/**
 * A data folder shut down cleanly with an empty ledger, then a stream of committed writes (with a
 * checkpoint and a WAL switch in the middle, so that data files and new WAL segments are synced
 * too) and a power cut: what comes back from the disk as the cut left it?
 */
async function writeThenCut(name: string, open: (dir: string) => Promise<Pick<Database, 'query' | 'exec' | 'close'>>) {
  const dir = join(scratch, name);
  const first = await openPglite(dir);
  await first.exec('create table ledger (id integer primary key, amount numeric not null)');
  await first.close();

  const disk = join(scratch, `${name}-disk`);
  const power = followOntoDisk(dir, disk);
  const db = await open(dir);
  const acknowledged: number[] = [];
  for (let id = 1; id <= 600; id++) {
    await db.query('insert into ledger values ($1, 10)', [id]);
    acknowledged.push(id);
    if (id === 200) await db.exec('checkpoint');
    if (id === 400) await db.exec('select pg_switch_wal()');
  }
  const { fsyncs } = power.cut();
  await db.close();

  const after = await openPglite(disk);
  try {
    const { rows } = await after.query<{ id: number }>('select id from ledger order by id');
    return { acknowledged, found: rows.map((r) => r.id), fsyncs };
  } finally {
    await after.close();
  }
}

describe.runIf(embedded)('the embedded database after a power cut', () => {
  it('keeps every acknowledged commit: each reached the disk before it was answered', async () => {
    const { acknowledged, found, fsyncs } = await writeThenCut('durable', (dir) => openPglite(dir));
    expect(found).toEqual(acknowledged);
    // At least one fsync per commit: the WAL, before the answer.
    expect(fsyncs).toBeGreaterThanOrEqual(acknowledged.length);
    console.log(
      `PGlite, a power cut: ${acknowledged.length} commits acknowledged, ${found.length} found on the disk the cut left (${fsyncs} fsyncs reached it)`,
    );
  }, 120_000);

  it('would lose them as PGlite ships (fsync off, no fsync in NODEFS): the cut is a real one', async () => {
    const { acknowledged, found, fsyncs } = await writeThenCut('as-shipped', openAsShipped);
    expect(fsyncs).toBe(0);
    expect(found.length).toBeLessThan(acknowledged.length);
    console.log(`PGlite as shipped, the same power cut: ${acknowledged.length} commits acknowledged, ${found.length} found`);
  }, 120_000);
});
