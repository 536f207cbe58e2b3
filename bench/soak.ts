// npm run bench -- --soak: ten minutes of mixed traffic on PostgreSQL, as `npm start` runs it (its
// HTTP processes and its job worker): reads, creates (whose installs the worker runs), refreshes
// and sign-ins at once, measured a minute at a time. Reports errors (budget 0), p99 over time,
// the server's RSS (budget: its lowest in the last minute is < 10% above its lowest in the second,
// after a minute's warm-up) and event-loop lag; writes bench/results/soak-latest.json, exits 1 when a budget is missed.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../src/server/paths';
import { signInActors, type Live, type Timing } from './cases/context';
import { loadCreateService } from './cases/create-service';
import { loadServicesRead } from './cases/services-read';
import { loadSignIn } from './cases/sign-in';
import { loadTokenRefresh } from './cases/token-refresh';
import { signInAll } from './lib/http';
import type { LoadResult } from './lib/load';
import { ms, num, printTable, verdict, type Row } from './lib/report';
import { actors, growScale, seedActors } from './lib/seed';
import { startServer, type RunningServer } from './lib/server';
import { postgresTarget } from './lib/targets';
import { SIZES } from './cases/scale';

/** What runs at once for the whole soak: full-speed reads, and the rest at a steady pace. */
const MIX = {
  reads: { connections: 8 },
  creates: { connections: 4, rate: 5 },
  refreshes: { connections: 8, rate: 50 },
  signIns: { connections: 2, rate: 4 },
} as const;
type Mix = Record<keyof typeof MIX, LoadResult>;

/** RSS sampled every second of a window: its lowest (after a collection, the live memory) and highest. */
type Rss = { lowMb: number; highMb: number };
type Minute = Mix & { rss: Rss; lagP99Ms: number; failedJobs: number; jobsDone: number };

const log = (s: string) => process.stderr.write(`[soak] ${s}\n`);

/** The HTTP processes' event-loop lag p99 (ms, their average) and the jobs failed in the last day, from /metrics. */
async function readServer(server: RunningServer): Promise<{ lagP99Ms: number; failedJobs: number }> {
  const text = await (await fetch(`${server.url}/metrics`)).text();
  const value = (name: string) =>
    text
      .split('\n')
      .filter((l) => l.startsWith(name))
      .reduce((sum, l) => sum + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);
  return { lagP99Ms: value('nodejs_eventloop_lag_p99_seconds ') * 1000, failedJobs: value('nodeharbor_jobs_failed{') };
}

/** One window of the mix; the refreshers sign in afresh, since a chain cut by a window's end cannot go on. */
async function window(live: Live, t: Timing): Promise<Mix> {
  const refreshers = await signInAll(live.server.url, live.apikey, actors.refreshers.slice(0, 2 * MIX.refreshes.connections));
  const [reads, creates, refreshes, signIns] = await Promise.all([
    loadServicesRead(live, t, MIX.reads),
    loadCreateService(live, t, MIX.creates),
    loadTokenRefresh({ ...live, refreshers }, t, MIX.refreshes),
    loadSignIn(live, t, MIX.signIns),
  ]);
  return { reads: reads!, creates: creates!, refreshes: refreshes!, signIns: signIns! };
}

export async function soak(quick: boolean): Promise<boolean> {
  const minutes = quick ? 2 : 10;
  const t: Timing = { seconds: quick ? 20 : 60, warmup: 0 };
  const target = await postgresTarget();
  try {
    log('first start (migrations), then seeding');
    await (await startServer(target.env)).stop();
    const db = await target.open();
    await seedActors(db);
    await growScale(db, ...SIZES[0]!);
    await db.close();
    const server = await startServer({ ...target.env, RUN_WORKER: 'true', PROVISION_INSTALL_SECONDS: '0', INSTALL_SETTLE_SECONDS: '0', WORKER_POLL_MS: '200' });
    try {
      const live = await signInActors(server, target);
      const rssBeforeMb = server.rssMb();
      const done: Minute[] = [];
      for (let m = 1; m <= minutes; m++) {
        const { result: mix, rss } = await sampleRss(server, () => window(live, t));
        const { lagP99Ms, failedJobs } = await readServer(server);
        const jobsDone = await countInstalls(target);
        done.push({ ...mix, rss, lagP99Ms, failedJobs, jobsDone });
        log(`window ${m}/${minutes}: reads ${num(mix.reads.rps)} req/s p99 ${ms(mix.reads.p99)}; RSS ${num(rss.lowMb)}–${num(rss.highMb)} MB`);
      }
      return report(done, rssBeforeMb, t);
    } finally {
      await server.stop();
    }
  } finally {
    await target.dispose();
  }
}

/** Runs `work` while sampling the server's RSS every second. */
async function sampleRss<T>(server: RunningServer, work: () => Promise<T>): Promise<{ result: T; rss: Rss }> {
  const rss = { lowMb: server.rssMb(), highMb: server.rssMb() };
  const timer = setInterval(() => {
    const now = server.rssMb();
    rss.lowMb = Math.min(rss.lowMb, now);
    rss.highMb = Math.max(rss.highMb, now);
  }, 1000);
  try {
    return { result: await work(), rss };
  } finally {
    clearInterval(timer);
  }
}

async function countInstalls(target: Awaited<ReturnType<typeof postgresTarget>>): Promise<number> {
  const db = await target.open();
  try {
    return (await db.query<{ n: number }>(`select count(*)::int as n from nodeharbor.jobs where task = 'install-service' and status = 'done'`)).rows[0]!.n;
  } finally {
    await db.close();
  }
}

function report(done: Minute[], rssBeforeMb: number, t: Timing): boolean {
  const names = Object.keys(MIX) as (keyof typeof MIX)[];
  const errorsOf = (m: Minute) => names.reduce((sum, n) => sum + m[n].errors, 0);
  const rows: Row[] = done.map((m, i) => ({
    label: `${i + 1}`,
    budget: `${num(((i + 1) * t.seconds) / 60, 1)} min`,
    cells: [
      ...names.map((n) => `${num(m[n].rps)}/s, p99 ${ms(m[n].p99)}${m[n].errors ? `, ${m[n].errors} err` : ''}`),
      String(m.jobsDone),
      String(m.failedJobs),
      String(errorsOf(m)),
      `${num(m.rss.lowMb)}–${num(m.rss.highMb)} MB`,
      ms(m.lagP99Ms),
    ],
  }));
  // Failed jobs are counted over the last day, so the last window's count holds them all.
  const errors = done.reduce((sum, m) => sum + errorsOf(m), 0) + done.at(-1)!.failedJobs;
  // The lowest of a window is the nearest to what stays after garbage collection; a single sample
  // moves by a tenth with the collector's timing. The first window is the warm-up: its lowest is
  // the server before any load (its pools, heaps and caches grow to the load's size in it).
  const start = done[Math.min(1, done.length - 1)]!.rss.lowMb;
  const end = done.at(-1)!.rss.lowMb;
  const growth = end / start - 1;
  const lag = Math.max(...done.map((m) => m.lagP99Ms));
  const missed = [...(errors > 0 ? [`errors: ${errors}`] : []), ...(growth >= 0.1 ? [`RSS grew ${num(growth * 100, 1)}%`] : [])];
  const headers = [
    'window',
    'ends at',
    ...names.map((n) => `${n} (${MIX[n].connections} conn)`),
    'installs done',
    'jobs failed',
    'HTTP errors',
    'RSS',
    'lag p99',
  ];
  const table = printTable(headers, rows);
  const summary = [
    `errors, HTTP and jobs (budget 0): ${verdict(errors === 0, String(errors))}`,
    `RSS, the lowest of a window (budget: < 10% growth from the second window, after the warm-up, to the last): ${num(rssBeforeMb)} MB before the load, ${num(done[0]!.rss.lowMb)} MB in the first window, ${num(start)} MB in the second, ${num(end)} MB in the last: ${verdict(growth < 0.1, `${num(growth * 100, 1)}%`)}`,
    `event-loop lag p99, highest window (HTTP processes' average): ${ms(lag)}`,
  ];
  console.log(`\n${table}\n\n${summary.join('\n')}`);
  mkdirSync(join(ROOT, 'bench/results'), { recursive: true });
  writeFileSync(
    join(ROOT, 'bench/results/soak-latest.json'),
    `${JSON.stringify({ date: new Date().toISOString(), windowSeconds: t.seconds, mix: MIX, table, summary, missed, windows: done, rssBeforeMb }, null, 2)}\n`,
  );
  return missed.length === 0;
}
