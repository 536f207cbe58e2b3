// npm run bench: the server against its own ceilings, measured side by side in one run (issue 7).
// For PostgreSQL and then PGlite: seed, start the server as `npm start` does, drive load with
// autocannon from another process, measure each case's ceiling, grow the data and measure again.
// Prints a Markdown table, writes bench/results/latest.json, and exits 1 when a budget is missed.
//   --quick           shorter loads and only the two smaller data sizes
//   --db=postgres     or --db=pglite: one column only
//   --web             run bench/web.ts first instead of reading its latest results
//   --soak            instead of the cases: ten minutes of mixed traffic on PostgreSQL (bench/soak.ts)
import { cpus, totalmem } from 'node:os';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ROOT } from '../src/server/paths';
import { buildIfStale } from '../scripts/source-stamp.mjs';
import { signInActors, type Timing } from './cases/context';
import { ceilingCreateService, loadCreateService } from './cases/create-service';
import { ceilingEmbedRead, loadEmbedRead } from './cases/embed-read';
import { measureMonitor, MONITOR_SIZES, type MonitorPoint } from './cases/node-monitor';
import { measureDbTimes, measureScale, SIZES, type ScalePoint } from './cases/scale';
import { ceilingServicesRead, loadServicesRead, unpreparedServicesRead } from './cases/services-read';
import { ceilingSignIn, loadSignIn } from './cases/sign-in';
import { soak } from './soak';
import { ceilingTokenRefresh, loadTokenRefresh, statementTokenRefresh } from './cases/token-refresh';
import { WEB_BUDGETS, webBudgets } from './cases/web-budgets';
import type { LoadResult } from './lib/load';
import { load, ms, num, printTable, verdict, type Row } from './lib/report';
import { deleteCreatedServices, growScale, seedActors } from './lib/seed';
import { startServer, type RunningServer } from './lib/server';
import { pgliteTarget, postgresTarget, type Kind, type Target } from './lib/targets';

const { values: opts } = parseArgs({ options: { quick: { type: 'boolean' }, db: { type: 'string' }, web: { type: 'boolean' }, soak: { type: 'boolean' } } });
const timing: Timing = opts.quick ? { seconds: 5, warmup: 1 } : { seconds: 10, warmup: 2 };
const scaleTiming: Timing = opts.quick ? { seconds: 3, warmup: 1 } : timing;
const dbSeconds = opts.quick ? 2 : 5;
const sizes = opts.quick ? SIZES.slice(0, 2) : SIZES;
const kinds: Kind[] = opts.db === 'postgres' || opts.db === 'pglite' ? [opts.db] : ['postgres', 'pglite'];

type Pair = { server: LoadResult; ceiling: LoadResult };
type KindResult = {
  version: string;
  startSeconds: number;
  startSecondsLargest: number;
  idleRssMb: number;
  loadRssMb: number;
  case1: Pair;
  /** PostgreSQL only: case 1's ceiling with its statements parsed and planned every time. */
  case1Unprepared?: LoadResult | undefined;
  case2: Pair;
  /** The refresh grant's statement alone, without the server. */
  case2Statement: LoadResult;
  case3: Pair;
  /** Sign-ins against the same bcrypt verifications alone. */
  case8: Pair;
  /** A two-level embed: products, their services, the services' events. */
  case9: Pair;
  /** Case 1 again, while case 8 runs beside it at full speed. */
  case8Read: LoadResult;
  scale: ScalePoint[];
  /** PostgreSQL only: the node monitor's sweep at each of MONITOR_SIZES. */
  monitor?: MonitorPoint[] | undefined;
};

const log = (s: string) => process.stderr.write(`[bench] ${s}\n`);

/** The highest RSS seen while `work` runs. */
async function peakRss(server: RunningServer, work: () => Promise<LoadResult>): Promise<{ result: LoadResult; rss: number }> {
  let rss = server.rssMb();
  const timer = setInterval(() => (rss = Math.max(rss, server.rssMb())), 250);
  try {
    return { result: await work(), rss };
  } finally {
    clearInterval(timer);
  }
}

async function benchKind(target: Target): Promise<KindResult> {
  log(`${target.kind}: first start (migrations), then seeding`);
  await (await startServer(target.env)).stop();
  let db = await target.open();
  const version = (await db.query<{ v: string }>("select current_setting('server_version') as v")).rows[0]!.v;
  await seedActors(db);
  await growScale(db, ...sizes[0]!);
  await db.close();

  let server = await startServer(target.env);
  const startSeconds = server.startSeconds;
  await new Promise((r) => setTimeout(r, 2000));
  const idleRssMb = server.rssMb();
  let live = await signInActors(server, target);
  log(`${target.kind}: case 1`);
  const { result: read, rss: loadRssMb } = await peakRss(server, () => loadServicesRead(live, timing));
  log(`${target.kind}: case 2`);
  const refresh = await loadTokenRefresh(live, timing);
  log(`${target.kind}: case 9`);
  const embed = await loadEmbedRead(live, timing);
  log(`${target.kind}: case 8`);
  const signIn = await loadSignIn(live, timing);
  log(`${target.kind}: case 1 while case 8 runs`);
  const [readUnderSignIn] = await Promise.all([loadServicesRead(live, timing), loadSignIn(live, timing)]);
  log(`${target.kind}: case 4 at ${sizes[0]!.join('/')}`);
  const scale = [await measureScale(live, scaleTiming, ...sizes[0]!)];
  log(`${target.kind}: case 3`);
  const create = await loadCreateService(live, timing);
  await server.stop();

  // Ceilings with the server stopped: PGlite's folder has one process at a time.
  db = await target.open();
  log(`${target.kind}: ceilings`);
  const readCeiling = await ceilingServicesRead(target, db, live, timing);
  const readUnprepared = await unpreparedServicesRead(target, db, live, timing);
  const embedCeiling = await ceilingEmbedRead(target, db, live, timing);
  const createCeiling = await ceilingCreateService(target, db, live, timing);
  const refreshStatement = await statementTokenRefresh(target, db, timing);
  await deleteCreatedServices(db);
  scale[0]!.db = await measureDbTimes(db, live, dbSeconds);
  let monitor: MonitorPoint[] | undefined;
  if (target.kind === 'postgres') {
    log(`${target.kind}: case 7`);
    monitor = [];
    for (const nodes of MONITOR_SIZES) monitor.push(await measureMonitor(target, db, nodes, opts.quick ? 5 : 10));
  }
  await db.close();
  const refreshCeiling = await ceilingTokenRefresh(live, timing);
  const signInCeiling = await ceilingSignIn(timing);

  let startSecondsLargest = startSeconds;
  for (const size of sizes.slice(1)) {
    log(`${target.kind}: growing to ${size.join('/')}`);
    db = await target.open();
    await growScale(db, ...size);
    const dbTimes = await measureDbTimes(db, live, dbSeconds);
    await db.close();
    server = await startServer(target.env);
    startSecondsLargest = server.startSeconds;
    live = await signInActors(server, target);
    log(`${target.kind}: case 4 at ${size.join('/')}`);
    scale.push({ ...(await measureScale(live, scaleTiming, ...size)), db: dbTimes });
    await server.stop();
  }
  return {
    version,
    startSeconds,
    startSecondsLargest,
    idleRssMb,
    loadRssMb,
    case1: { server: read, ceiling: readCeiling },
    case1Unprepared: readUnprepared,
    case2: { server: refresh, ceiling: refreshCeiling },
    case2Statement: refreshStatement,
    case3: { server: create, ceiling: createCeiling },
    case8: { server: signIn, ceiling: signInCeiling },
    case9: { server: embed, ceiling: embedCeiling },
    case8Read: readUnderSignIn!,
    scale,
    monitor,
  };
}

if (!buildIfStale(ROOT)) process.exit(1);
if (opts.soak) process.exit((await soak(Boolean(opts.quick))) ? 0 : 1);
const started = Date.now();
const results: Partial<Record<Kind, KindResult>> = {};
for (const kind of kinds) {
  const target = kind === 'postgres' ? await postgresTarget() : await pgliteTarget();
  try {
    results[kind] = await benchKind(target);
  } finally {
    await target.dispose();
  }
}
const web = webBudgets(Boolean(opts.web));

// ---------------------------------------------------------------- the table

const cols = kinds.map((k) => results[k]!);
const ceilingName = (k: Kind): string => (k === 'postgres' ? 'pgbench' : 'in-process');
const ratio = (p: Pair) => p.server.rps / p.ceiling.rps;
const pct = (x: number) => `${num(x * 100)}%`;
const missed: string[] = [];
const judge = (label: string, met: boolean, text: string) => {
  if (!met) missed.push(`${label}: ${text}`);
  return verdict(met, text);
};
const rows: Row[] = [];
/** A case against its ceiling: its row, the ceiling's, and the verdict `judgeKind` gives each column. */
const pairRows = (
  n: string,
  title: string,
  budget: string,
  pick: (r: KindResult) => Pair,
  judgeKind: (k: Kind, r: KindResult) => [boolean, string],
  ceiling = ceilingName,
) => {
  rows.push({ label: `${n} ${title}`, budget: '', cells: cols.map((r) => load(pick(r).server)) });
  rows.push({
    label: '  ceiling',
    budget: '',
    cells: kinds.map((k, i) => `${ceiling(k)}: ${load(pick(cols[i]!).ceiling, ceiling === ceilingName ? 'tx/s' : 'req/s')}`),
  });
  rows.push({
    label: '  ratio to ceiling',
    budget,
    cells: kinds.map((k, i) => {
      const [met, text] = judgeKind(k, cols[i]!);
      return judge(`case ${n} ${k}`, met, text);
    }),
  });
};
// Case 1 on PostgreSQL against pgbench's own rate and tail; PGlite keeps the budgets of issue 7.
pairRows(
  '1',
  'GET /rest/v1/services, 32 conn',
  '≥ 60%, p99 ≤ 2× pgbench, 0 errors (PGlite: ≥ 50%, p99 ≤ 20 ms)',
  (r) => r.case1,
  (k, r) => {
    const p = r.case1;
    const tail = k === 'postgres' ? p.server.p99 <= 2 * p.ceiling.p99 : p.server.p99 <= 20;
    const tailText = k === 'postgres' ? `p99 ${num(p.server.p99 / p.ceiling.p99, 2)}× pgbench's` : `p99 ${ms(p.server.p99)}`;
    return [ratio(p) >= (k === 'postgres' ? 0.6 : 0.5) && tail && p.server.errors === 0, `${pct(ratio(p))}, ${tailText}, ${p.server.errors} err`];
  },
);
rows.push({
  label: '    ceiling with statements parsed each time',
  budget: '',
  cells: cols.map((r) =>
    r.case1Unprepared ? `pgbench -M extended: ${load(r.case1Unprepared, 'tx/s')}; the server at ${pct(r.case1.server.rps / r.case1Unprepared.rps)} of it` : '-',
  ),
});
// Case 2 on PostgreSQL against its own statement run by pgbench (the database's share of the
// work); the JWT ceiling is shown beside it. PGlite keeps its budget against the JWT ceiling.
pairRows(
  '2',
  'POST /auth/v1/token refresh, 32 conn',
  '≥ 70% of its statement (PGlite: ≥ 30% of the ceiling)',
  (r) => r.case2,
  (k, r) => {
    const ofStatement = r.case2.server.rps / r.case2Statement.rps;
    return k === 'postgres'
      ? [ofStatement >= 0.7, `${pct(ofStatement)} of its statement, ${pct(ratio(r.case2))} of the ceiling`]
      : [ratio(r.case2) >= 0.3, pct(ratio(r.case2))];
  },
  () => 'bare Hono, one JWT signed',
);
rows.push({
  label: '    its statement alone, no server',
  budget: '',
  cells: kinds.map(
    (k, i) => `${ceilingName(k)}: ${load(cols[i]!.case2Statement, 'tx/s')}; ${pct(cols[i]!.case2Statement.rps / cols[i]!.case2.ceiling.rps)} of the ceiling`,
  ),
});
pairRows(
  '3',
  'POST rpc/create_service_securely, 16 conn/users',
  '≥ 50%',
  (r) => r.case3,
  (_k, r) => [ratio(r.case3) >= 0.5, pct(ratio(r.case3))],
);
// Case 9: the embed's SQL costs the database more than case 1's, so the server's own share is smaller.
pairRows(
  '9',
  'GET /rest/v1/products, two-level embed, 32 conn',
  '≥ 60% (PGlite: ≥ 50%), 0 errors',
  (r) => r.case9,
  (k, r) => [ratio(r.case9) >= (k === 'postgres' ? 0.6 : 0.5) && r.case9.server.errors === 0, `${pct(ratio(r.case9))}, ${r.case9.server.errors} err`],
);
pairRows(
  '8',
  'POST /auth/v1/token password, 16 conn',
  '≥ 80%',
  (r) => r.case8,
  (_k, r) => [ratio(r.case8) >= 0.8, pct(ratio(r.case8))],
  () => 'the bcrypt checks alone, 16 at a time',
);
rows.push({
  label: '  case 1 while case 8 runs',
  budget: 'p99 ≤ 1.5× case 1',
  cells: kinds.map((k, i) => {
    const r = cols[i]!;
    const growth = r.case8Read.p99 / r.case1.server.p99;
    return judge(`case 8 reads ${k}`, growth <= 1.5 && r.case8Read.errors === 0, `${load(r.case8Read)}; p99 ${num(growth, 2)}×`);
  }),
});
for (const [i, size] of sizes.entries()) {
  rows.push({
    label: `4 ${num(size[0])} users, ${num(size[1])} services`,
    budget: '',
    cells: cols.map((r) => `services p99 ${ms(r.scale[i]!.read.p99)}; admin list p99 ${ms(r.scale[i]!.admin.p99)} (${num(r.scale[i]!.admin.rps)} req/s)`),
  });
  rows.push({
    label: '    the statements alone, one caller',
    budget: '',
    cells: cols.map(
      (r) =>
        `services p50 ${ms(r.scale[i]!.db!.read.p50)}, p99 ${ms(r.scale[i]!.db!.read.p99)}; admin list p50 ${ms(r.scale[i]!.db!.admin.p50)}, p99 ${ms(r.scale[i]!.db!.admin.p99)}`,
    ),
  });
}
const growth = (r: KindResult, pick: (p: ScalePoint) => LoadResult) => pick(r.scale.at(-1)!).p99 / pick(r.scale[0]!).p99;
rows.push({
  label: '  p99 growth, smallest to largest',
  budget: '≤ 1.5×',
  cells: kinds.map((k, i) => {
    const g1 = growth(cols[i]!, (p) => p.read);
    const g2 = growth(cols[i]!, (p) => p.admin);
    return judge(`case 4 ${k}`, g1 <= 1.5 && g2 <= 1.5, `services ${num(g1, 2)}×, admin list ${num(g2, 2)}×`);
  }),
});
rows.push({
  label: '    the statements alone (p99 growth)',
  budget: '',
  cells: cols.map(
    (r) =>
      `services ${num(
        growth(r, (p) => p.db!.read),
        2,
      )}×, admin list ${num(
        growth(r, (p) => p.db!.admin),
        2,
      )}×`,
  ),
});
rows.push({
  label: '5 start-up to /healthz 200',
  budget: '',
  cells: cols.map((r) => `${num(r.startSeconds, 2)} s (${num(r.startSecondsLargest, 2)} s at the largest size)`),
});
rows.push({ label: '  RSS idle / under case 1', budget: '', cells: cols.map((r) => `${num(r.idleRssMb)} MB / ${num(r.loadRssMb)} MB`) });
for (const [i, nodes] of MONITOR_SIZES.entries()) {
  rows.push({
    label: `7 node monitor sweep, ${num(nodes)} simulated nodes`,
    budget: '',
    cells: cols.map((r) => {
      const p = r.monitor?.[i];
      return p ? `${p.statements.max} statements; database p50 ${ms(p.dbMs.p50)}, max ${ms(p.dbMs.max)}; sweep p50 ${ms(p.sweepMs.p50)}` : '-';
    }),
  });
}
rows.push({
  label: '  statements per sweep, smallest to largest',
  budget: 'the same',
  cells: kinds.map((k, i) => {
    const m = cols[i]!.monitor;
    if (!m) return '-';
    const counts = m.flatMap((p) => [p.statements.min, p.statements.max]);
    return judge(`case 7 ${k}`, new Set(counts).size === 1, [...new Set(counts)].join(', '));
  }),
});
if (web) {
  const both = (s: string) => kinds.map(() => s);
  const webDate = `(bench:web of ${web.date.slice(0, 16).replace('T', ' ')} UTC)`;
  rows.push({
    label: `6 web ${webDate}: largest initial JS`,
    budget: `≤ ${WEB_BUDGETS.jsBytes / 1024} KB gzip`,
    cells: both(judge('case 6 JS', web.maxJs.bytes <= WEB_BUDGETS.jsBytes, `${num(web.maxJs.bytes / 1024, 1)} KB (${web.maxJs.route})`)),
  });
  rows.push({
    label: '  lowest Lighthouse performance',
    budget: `≥ ${WEB_BUDGETS.score}`,
    cells: both(judge('case 6 performance', web.minPerformance.score >= WEB_BUDGETS.score, `${web.minPerformance.score} (${web.minPerformance.route})`)),
  });
  rows.push({
    label: '  lowest Lighthouse accessibility',
    budget: `≥ ${WEB_BUDGETS.score}`,
    cells: both(
      judge('case 6 accessibility', web.minAccessibility.score >= WEB_BUDGETS.score, `${web.minAccessibility.score} (${web.minAccessibility.route})`),
    ),
  });
  rows.push({ label: '  axe serious/critical', budget: '0', cells: both(judge('case 6 axe', web.axeViolations === 0, String(web.axeViolations))) });
}

const headers = ['case', 'budget', ...kinds.map((k, i) => `${k === 'postgres' ? 'PostgreSQL' : 'PGlite'} ${cols[i]!.version}`)];
const table = printTable(headers, rows);
const pglite = (JSON.parse(readFileSync(join(ROOT, 'node_modules/@electric-sql/pglite/package.json'), 'utf8')) as { version: string }).version;
const machine = {
  cpu: cpus()[0]?.model ?? 'unknown',
  cores: cpus().length,
  ramGb: Math.round(totalmem() / 2 ** 30),
  node: process.version,
  pglite,
};
console.log(`\n${table}\n`);
console.log(`${machine.cpu}, ${machine.cores} cores, ${machine.ramGb} GB; Node ${machine.node}; ${Math.round((Date.now() - started) / 1000)} s`);
mkdirSync(join(ROOT, 'bench/results'), { recursive: true });
writeFileSync(
  join(ROOT, 'bench/results/latest.json'),
  `${JSON.stringify({ date: new Date().toISOString(), machine, options: { ...opts, timing, scaleTiming }, table, missed, results, web }, null, 2)}\n`,
);
if (missed.length) {
  console.log(`\nBudgets missed:\n${missed.map((m) => `  - ${m}`).join('\n')}`);
  process.exit(1);
}
console.log('\nEvery budget met.');
process.exit(0);
