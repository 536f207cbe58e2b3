// npm run bench:drivers: what the switch from autocannon to wrk changed (issue 40). Case 1 on
// PostgreSQL, on one server, driven by wrk and by autocannon in turn, three rounds, each beside
// pgbench's ceiling (the server idle meanwhile), at case 1's size and timing of npm run bench.
import { signInActors, type Timing } from './cases/context';
import { SIZES } from './cases/scale';
import { ceilingServicesRead, loadServicesRead } from './cases/services-read';
import type { LoadResult } from './lib/load';
import { growScale, seedActors } from './lib/seed';
import { startServer } from './lib/server';
import { postgresTarget } from './lib/targets';

import { buildIfStale } from '../scripts/source-stamp.mjs';
import { ROOT } from '../src/server/paths';

const ROUNDS = 3;
const timing: Timing = { seconds: 10, warmup: 2 };

if (!buildIfStale(ROOT)) process.exit(1);
const target = await postgresTarget();
try {
  await (await startServer(target.env)).stop();
  const db = await target.open();
  await seedActors(db);
  await growScale(db, ...SIZES[0]!);
  const server = await startServer(target.env);
  const rows: string[] = [];
  const cell = (r: LoadResult, ceiling: LoadResult) => `${Math.round(r.rps)} req/s, p99 ${r.p99.toFixed(1)} ms (${Math.round((r.rps / ceiling.rps) * 100)} %)`;
  try {
    const live = await signInActors(server, target);
    for (let round = 1; round <= ROUNDS; round++) {
      const wrk = await loadServicesRead(live, timing);
      const autocannon = await loadServicesRead(live, timing, { driver: 'autocannon' });
      const ceiling = await ceilingServicesRead(target, db, live, timing);
      rows.push(`| ${round} | ${cell(wrk, ceiling)} | ${cell(autocannon, ceiling)} | ${Math.round(ceiling.rps)} tx/s, p99 ${ceiling.p99.toFixed(1)} ms |`);
    }
  } finally {
    await server.stop();
    await db.close();
  }
  console.log('| round | wrk (share of pgbench) | autocannon (share of pgbench) | pgbench |');
  console.log('| --- | --- | --- | --- |');
  for (const row of rows) console.log(row);
} finally {
  await target.dispose();
}
