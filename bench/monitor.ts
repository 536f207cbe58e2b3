// npm run bench:monitor: case 7 of npm run bench alone (the node monitor's sweep on PostgreSQL).
import { measureMonitor, MONITOR_SIZES } from './cases/node-monitor';
import { seedActors } from './lib/seed';
import { startServer } from './lib/server';
import { postgresTarget } from './lib/targets';

import { buildIfStale } from '../scripts/source-stamp.mjs';
import { ROOT } from '../src/server/paths';

if (!buildIfStale(ROOT)) process.exit(1);
const target = await postgresTarget();
try {
  // The first start applies the migrations, as in npm run bench.
  await (await startServer(target.env)).stop();
  const db = await target.open();
  await seedActors(db);
  for (const nodes of MONITOR_SIZES) {
    const p = await measureMonitor(target, db, nodes, 10);
    console.log(
      `${nodes} nodes: ${p.statements.min}-${p.statements.max} statements per sweep; database ${p.dbMs.p50.toFixed(1)} ms p50, ${p.dbMs.max.toFixed(1)} ms max; sweep ${p.sweepMs.p50.toFixed(1)} ms p50`,
    );
  }
  await db.close();
} finally {
  await target.dispose();
}
