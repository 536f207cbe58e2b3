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
import { signInActors, type Live, type Timing } from './cases/context';
import { ceilingCreateService, loadCreateService } from './cases/create-service';
import { ceilingEmbedRead, loadEmbedRead } from './cases/embed-read';
import { measureMonitor, MONITOR_SIZES, type MonitorPoint } from './cases/node-monitor';
import { measureDbTimes, measureScale, SIZES, type ScalePoint } from './cases/scale';
import { ceilingServicesRead, CONNECTIONS as SERVICES_CONNECTIONS, loadServicesRead, unpreparedServicesRead } from './cases/services-read';
import { ceilingSignIn, loadSignIn } from './cases/sign-in';
import { soak } from './soak';
import { ceilingTokenRefresh, loadTokenRefresh, statementTokenRefresh } from './cases/token-refresh';
import { WEB_BUDGETS, webBudgets } from './cases/web-budgets';
import type { LoadResult } from './lib/load';
import { load, ms, num, printTable, verdict, type Row } from './lib/report';
import { deleteCreatedServices, growScale, seedActors } from './lib/seed';
import { FLOOR, startServer, type RunningServer } from './lib/server';
import { pgliteTarget, postgresTarget, type Kind, type Target } from './lib/targets';

const { values: opts } = parseArgs({ options: { quick: { type: 'boolean' }, db: { type: 'string' }, web: { type: 'boolean' }, soak: { type: 'boolean' } } });
const timing: Timing = opts.quick ? { seconds: 5, warmup: 1 } : { seconds: 10, warmup: 2 };
const scaleTiming: Timing = opts.quick ? { seconds: 3, warmup: 1 } : timing;
const dbSeconds = opts.quick ? 2 : 5;
const sizes = opts.quick ? SIZES.slice(0, 2) : SIZES;
const kinds: Kind[] = opts.db === 'postgres' || opts.db === 'pglite' ? [opts.db] : ['postgres', 'pglite'];

type Pair = { server: LoadResult; ceiling: LoadResult };
/**
 * The rounds of a case: server and ceiling measured one after the other, ROUNDS times, alternating.
 * A single pair on this machine moves 10 to 45 %; the median ratio of three, and their spread, less.
 */
type Rounds = Pair[];
const ROUNDS = 3;
type KindResult = {
  version: string;
  startSeconds: number;
  startSecondsLargest: number;
  idleRssMb: number;
  loadRssMb: number;
  case1: Rounds;
  /** Case 1 against its floor (bench/lib/floor-server.ts) in each round: the request path's reference. */
  case1Floor: Rounds;
  /** PostgreSQL only: case 1's ceiling with its statements parsed and planned every time. */
  case1Unprepared?: LoadResult | undefined;
  /** Against the refresh grant's statement alone, without the server. */
  case2: Rounds;
  /** The bare JWT signer of each round: how much of it the statement leaves reachable. */
  case2Jwt: LoadResult[];
  case3: Rounds;
  /** Sign-ins against the same bcrypt verifications alone. */
  case8: Rounds;
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

/**
 * One database's column. Cases 1, 2, 3 and 8 run in ROUNDS rounds: the server's loads, then, with
 * the server stopped (PGlite's folder admits one process), their ceilings and case 1's floor. The
 * other cases run in the first round.
 */
async function benchKind(target: Target): Promise<KindResult> {
  log(`${target.kind}: first start (migrations), then seeding`);
  await (await startServer(target.env)).stop();
  let db = await target.open();
  const version = (await db.query<{ v: string }>("select current_setting('server_version') as v")).rows[0]!.v;
  await seedActors(db);
  await growScale(db, ...sizes[0]!);
  await db.close();

  const r: Omit<KindResult, 'version' | 'startSecondsLargest' | 'case9' | 'case8Read' | 'scale' | 'monitor' | 'case1Unprepared'> = {
    startSeconds: 0,
    idleRssMb: 0,
    loadRssMb: 0,
    case1: [],
    case1Floor: [],
    case2: [],
    case2Jwt: [],
    case3: [],
    case8: [],
  };
  let first: Pick<KindResult, 'case9' | 'case8Read' | 'scale' | 'monitor' | 'case1Unprepared'> | undefined;
  let live: Live | undefined;
  for (let round = 1; round <= ROUNDS; round++) {
    const server = await startServer(target.env);
    live = await signInActors(server, target);
    log(`${target.kind}: round ${round}: the server, cases 1, 2, 3 and 8`);
    let read: LoadResult;
    if (round === 1) {
      r.startSeconds = server.startSeconds;
      await new Promise((resolve) => setTimeout(resolve, 2000));
      r.idleRssMb = server.rssMb();
      ({ result: read, rss: r.loadRssMb } = await peakRss(server, () => loadServicesRead(live!, timing)));
    } else read = await loadServicesRead(live, timing);
    const refresh = await loadTokenRefresh(live, timing);
    const create = await loadCreateService(live, timing);
    const signIn = await loadSignIn(live, timing);
    let embed: LoadResult | undefined;
    let readUnderSignIn: LoadResult | undefined;
    let scale: ScalePoint | undefined;
    if (round === 1) {
      log(`${target.kind}: case 9, case 1 while case 8 runs, case 4 at ${sizes[0]!.join('/')}`);
      embed = await loadEmbedRead(live, timing);
      [readUnderSignIn] = await Promise.all([loadServicesRead(live, timing), loadSignIn(live, timing)]);
      scale = await measureScale(live, scaleTiming, ...sizes[0]!);
    }
    await server.stop();

    log(`${target.kind}: round ${round}: the ceilings and case 1's floor`);
    db = await target.open();
    const readCeiling = await ceilingServicesRead(target, db, live, timing);
    const createCeiling = await ceilingCreateService(target, db, live, timing);
    const refreshStatement = await statementTokenRefresh(target, db, timing);
    await deleteCreatedServices(db);
    if (round === 1) {
      const embedCeiling = await ceilingEmbedRead(target, db, live, timing);
      scale!.db = await measureDbTimes(db, live, dbSeconds);
      first = {
        case1Unprepared: await unpreparedServicesRead(target, db, live, timing),
        case9: { server: embed!, ceiling: embedCeiling },
        case8Read: readUnderSignIn!,
        scale: [scale!],
      };
    }
    await db.close();
    r.case1.push({ server: read, ceiling: readCeiling });
    r.case2.push({ server: refresh, ceiling: refreshStatement });
    r.case2Jwt.push(await ceilingTokenRefresh(live, timing));
    r.case3.push({ server: create, ceiling: createCeiling });
    r.case8.push({ server: signIn, ceiling: await ceilingSignIn(timing) });
    // The reader's token is checked against the issuer that signed it: the server's PUBLIC_URL.
    const floor = await startServer({ ...target.env, PUBLIC_URL: live.server.url }, { entry: FLOOR });
    try {
      r.case1Floor.push({ server: read, ceiling: await loadServicesRead({ ...live, server: floor }, timing) });
    } finally {
      await floor.stop();
    }
  }

  // After the rounds, whose reads its thousands of nodes (the reader's, removed but not yet vacuumed)
  // would slow, and before the data grows: at the largest size every seeded service is a node to sweep.
  if (target.kind === 'postgres') {
    log(`${target.kind}: case 7`);
    db = await target.open();
    first!.monitor = [];
    for (const nodes of MONITOR_SIZES) first!.monitor.push(await measureMonitor(target, db, nodes, opts.quick ? 5 : 10));
    await db.close();
  }

  let startSecondsLargest = r.startSeconds;
  for (const size of sizes.slice(1)) {
    log(`${target.kind}: growing to ${size.join('/')}`);
    db = await target.open();
    await growScale(db, ...size);
    const dbTimes = await measureDbTimes(db, live!, dbSeconds);
    await db.close();
    const server = await startServer(target.env);
    startSecondsLargest = server.startSeconds;
    live = await signInActors(server, target);
    log(`${target.kind}: case 4 at ${size.join('/')}`);
    first!.scale.push({ ...(await measureScale(live, scaleTiming, ...size)), db: dbTimes });
    await server.stop();
  }
  return { version, startSecondsLargest, ...r, ...first! };
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
/** The round whose ratio is the median, which the table shows and judges. */
const median = (rounds: Rounds): Pair => [...rounds].sort((a, b) => ratio(a) - ratio(b))[Math.floor(rounds.length / 2)]!;
/** The ratios' spread over the rounds, lowest to highest. */
const spread = (rounds: Rounds) => {
  const rs = rounds.map(ratio);
  return `rounds ${pct(Math.min(...rs))}–${pct(Math.max(...rs))}`;
};
const missed: string[] = [];
const judge = (label: string, met: boolean, text: string) => {
  if (!met) missed.push(`${label}: ${text}`);
  return verdict(met, text);
};
const rows: Row[] = [];
/**
 * A case against its ceiling: its row, the ceiling's, and the verdict `judgeKind` gives each
 * column on the median round, with the spread of the rounds beside it.
 */
const pairRows = (
  n: string,
  title: string,
  budget: string,
  pick: (r: KindResult) => Rounds,
  judgeKind: (k: Kind, p: Pair) => [boolean, string],
  ceiling = ceilingName,
) => {
  rows.push({ label: `${n} ${title}`, budget: '', cells: cols.map((r) => load(median(pick(r)).server)) });
  rows.push({
    label: '  ceiling',
    budget: '',
    cells: kinds.map((k, i) => `${ceiling(k)}: ${load(median(pick(cols[i]!)).ceiling, ceiling === ceilingName ? 'tx/s' : 'req/s')}`),
  });
  rows.push({
    label: `  ratio to ceiling${pick(cols[0]!).length > 1 ? `, median of ${pick(cols[0]!).length}` : ''}`,
    budget,
    cells: kinds.map((k, i) => {
      const rounds = pick(cols[i]!);
      const [met, text] = judgeKind(k, median(rounds));
      return `${judge(`case ${n} ${k}`, met, text)}${rounds.length > 1 ? ` (${spread(rounds)})` : ''}`;
    }),
  });
};
// Case 1: on PostgreSQL against pgbench's own rate and tail. On PGlite, which runs one statement
// at a time, p99 at 32 connections cannot be below 32 ÷ the in-process throughput (Little's law):
// the budget is twice that.
pairRows(
  '1',
  'GET /rest/v1/services, 32 conn',
  '≥ 60%, p99 ≤ 2× pgbench, 0 errors (PGlite: ≥ 50%, p99 ≤ 2 × 32 ÷ in-process)',
  (r) => r.case1,
  (k, p) => {
    const bound = k === 'postgres' ? 2 * p.ceiling.p99 : (2 * SERVICES_CONNECTIONS * 1000) / p.ceiling.rps;
    const tailText = k === 'postgres' ? `p99 ${num(p.server.p99 / p.ceiling.p99, 2)}× pgbench's` : `p99 ${ms(p.server.p99)} of ${ms(bound)}`;
    return [
      ratio(p) >= (k === 'postgres' ? 0.6 : 0.5) && p.server.p99 <= bound && p.server.errors === 0,
      `${pct(ratio(p))}, ${tailText}, ${p.server.errors} err`,
    ];
  },
);
rows.push({
  label: '    its floor: one Hono route, the same token check and statement',
  budget: '',
  cells: cols.map((r) => {
    const m = median(r.case1Floor);
    return `${load(m.ceiling)}; the server at ${pct(ratio(m))} of it (${spread(r.case1Floor)})`;
  }),
});
rows.push({
  label: '    ceiling with statements parsed each time',
  budget: '',
  cells: cols.map((r) =>
    r.case1Unprepared
      ? `pgbench -M extended: ${load(r.case1Unprepared, 'tx/s')}; the server at ${pct(median(r.case1).server.rps / r.case1Unprepared.rps)} of it`
      : '-',
  ),
});
// Case 2 against its own statement with no server (the database's share of the work); the JWT
// signer is shown beside it: on PGlite the statement alone is a few per cent of it.
pairRows(
  '2',
  'POST /auth/v1/token refresh, 32 conn',
  '≥ 70% of its statement',
  (r) => r.case2,
  (_k, p) => [ratio(p) >= 0.7, `${pct(ratio(p))} of its statement`],
  (k) => `its statement alone, ${ceilingName(k)}`,
);
rows.push({
  label: '    bare Hono, one JWT signed',
  budget: '',
  cells: cols.map((r) => {
    const jwt = [...r.case2Jwt].sort((a, b) => a.rps - b.rps)[Math.floor(r.case2Jwt.length / 2)]!;
    return `${load(jwt)}; the statement alone at ${pct(median(r.case2).ceiling.rps / jwt.rps)} of it`;
  }),
});
pairRows(
  '3',
  'POST rpc/create_service_securely, 16 conn/users',
  '≥ 50%',
  (r) => r.case3,
  (_k, p) => [ratio(p) >= 0.5, pct(ratio(p))],
);
// Case 9: the embed's SQL costs the database more than case 1's, so the server's own share is smaller.
pairRows(
  '9',
  'GET /rest/v1/products, two-level embed, 32 conn',
  '≥ 60% (PGlite: ≥ 50%), 0 errors',
  (r) => [r.case9],
  (k, p) => [ratio(p) >= (k === 'postgres' ? 0.6 : 0.5) && p.server.errors === 0, `${pct(ratio(p))}, ${p.server.errors} err`],
);
pairRows(
  '8',
  'POST /auth/v1/token password, 16 conn',
  '≥ 80%',
  (r) => r.case8,
  (_k, p) => [ratio(p) >= 0.8, pct(ratio(p))],
  () => 'the bcrypt checks alone, 16 at a time',
);
rows.push({
  label: '  case 1 while case 8 runs',
  budget: 'p99 ≤ 1.5× case 1',
  cells: kinds.map((k, i) => {
    const r = cols[i]!;
    const growth = r.case8Read.p99 / r.case1[0]!.server.p99;
    return judge(`case 8 reads ${k}`, growth <= 1.5 && r.case8Read.errors === 0, `${load(r.case8Read)}; p99 ${num(growth, 2)}× round 1's`);
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
