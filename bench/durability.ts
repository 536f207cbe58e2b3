// npm run bench:durability (issue 18): what a durable commit costs on the embedded database.
// The same single-row commits on PGlite as it ships (fsync off, and no fsync in its NODEFS) and as
// we run it (fsync on, the WAL synced before each commit is answered: src/server/db/durable-nodefs.ts),
// one data folder each, in this process. Prints commits per second and latency; asserts nothing.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { PGlite } from '@electric-sql/pglite';
import { openPglite } from '../src/server/db/pglite';

const { values: opts } = parseArgs({ options: { commits: { type: 'string', default: '2000' } } });
const commits = Number(opts.commits);
type Target = { query: (sql: string, params: unknown[]) => Promise<unknown>; close: () => Promise<void> };

async function measure(name: string, open: (dir: string) => Promise<Target>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'nh-bench-durability-'));
  try {
    const db = await open(dir);
    await db.query('create table ledger (id integer primary key, amount numeric not null)', []);
    const took: number[] = [];
    const start = performance.now();
    for (let id = 1; id <= commits; id++) {
      const t = performance.now();
      await db.query('insert into ledger values ($1, 10)', [id]);
      took.push(performance.now() - t);
    }
    const seconds = (performance.now() - start) / 1000;
    await db.close();
    took.sort((a, b) => a - b);
    const at = (p: number) => took[Math.min(took.length - 1, Math.floor(p * took.length))]!.toFixed(2);
    console.log(`| ${name} | ${Math.round(commits / seconds)} commits/s | p50 ${at(0.5)} ms | p99 ${at(0.99)} ms |`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

console.log(`${commits} single-row commits, one after the other\n`);
console.log('| PGlite | throughput | p50 | p99 |\n|---|---|---|---|');
await measure('as shipped: fsync off', async (dir) => {
  const pg = await PGlite.create({ dataDir: join(dir, 'pglite') });
  return { query: (sql, params) => pg.query(sql, params), close: () => pg.close() };
});
await measure('ours: each commit on the disk', (dir) => openPglite(dir));
