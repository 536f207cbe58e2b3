// npm run bench:instructions: machine instructions per request of case 1 and case 2, counted by
// valgrind's callgrind in one HTTP process on PostgreSQL, and of case 1 on its floor
// (bench/lib/floor-server.ts: the same token check and statement through the same pool, and
// nothing else). Unlike requests per second, the count
// hardly moves with the machine's load (two runs of the same code differed by 1.3 % at most), so it can
// tell a few per cent apart on a shared machine. Compare two versions by running it in each.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { SIZES } from './cases/scale';
import { anonKey, signIn, type Session } from './lib/http';
import { actors, growScale, seedActors } from './lib/seed';
import { FLOOR, startServer, type RunningServer } from './lib/server';
import { SERVICES_QUERY } from './lib/statements';
import { postgresTarget } from './lib/targets';

import { buildIfStale } from '../scripts/source-stamp.mjs';
import { ROOT } from '../src/server/paths';

const { values: opts } = parseArgs({ options: { warmup: { type: 'string', default: '1500' }, requests: { type: 'string', default: '1000' } } });
const WARMUP = Number(opts.warmup);
const REQUESTS = Number(opts.requests);

/** vgdb names its pipe after the host and user in the environment: the server and callgrind_control must agree. */
const HOST = '127.0.0.1';
const USER = process.env.USER ?? 'root';
const NAMES = { HOST, USER, LOGNAME: USER };

/** callgrind_control on the server: vgdb finds it by pid, user and host. */
function control(server: RunningServer, ...args: string[]): void {
  execFileSync('callgrind_control', [...args, String(server.pid)], { env: { ...process.env, ...NAMES }, stdio: 'ignore' });
}

/**
 * The function whose inclusive count is V8's optimising compiler at work on its own thread: it goes
 * on compiling after the warm-up (30 % of case 1's count and of its floor's on 2026-11-29), in bursts
 * that may or may not fall in the counted window, so it is reported apart from the request's work.
 */
const OPTIMISING_COMPILER = 'v8::internal::OptimizingCompileDispatcher::CompileTask::RunInternal()';

/** The inclusive count of `fn` in a callgrind dump (callgrind_annotate), 0 when it never ran. */
function inclusive(file: string, fn: string): number {
  const text = execFileSync('callgrind_annotate', ['--inclusive=yes', '--threshold=100', file], { maxBuffer: 256 * 1024 * 1024 }).toString();
  const line = text.split('\n').find((l) => l.includes(`???:${fn} `));
  return line ? Number(/^\s*([\d,]+)/.exec(line)![1]!.replace(/,/g, '')) : 0;
}

type Count = { total: number; compiler: number };

/** The total of callgrind's latest dump (`out.1`, `out.2`, …) and its optimising compiler's share; the dump is then removed. */
function takeLatestDump(out: string): Count {
  const prefix = `${basename(out)}.`;
  const n = Math.max(
    ...readdirSync(dirname(out))
      .filter((f) => f.startsWith(prefix))
      .map((f) => Number(f.slice(prefix.length))),
  );
  const file = `${out}.${n}`;
  const total = Number(/^totals: (\d+)/m.exec(readFileSync(file, 'utf8'))![1]);
  const compiler = inclusive(file, OPTIMISING_COMPILER);
  rmSync(file);
  return { total, compiler };
}

/** Instructions per request of `one`, counted after `WARMUP` requests let the JIT settle. */
async function count(server: RunningServer, out: string, one: () => Promise<void>): Promise<Count> {
  // The first request may find its kept-alive connection closed by the server: reading the last
  // dump can take longer than the server's keep-alive timeout on a loaded machine. Not counted.
  await one().catch(() => one());
  for (let i = 1; i < WARMUP; i++) await one();
  control(server, '-z');
  control(server, '-i', 'on');
  for (let i = 0; i < REQUESTS; i++) await one();
  control(server, '-i', 'off');
  control(server, '-d');
  const { total, compiler } = takeLatestDump(out);
  return { total: total / REQUESTS, compiler: compiler / REQUESTS };
}

/** A count without the optimising compiler's thread: the request's own work, steady between runs. */
function own(c: Count): number {
  return c.total - c.compiler;
}

if (!buildIfStale(ROOT)) process.exit(1);
const target = await postgresTarget();
const out = join(tmpdir(), `nh-callgrind-${process.pid}.out`);
try {
  await (await startServer(target.env)).stop();
  const db = await target.open();
  await seedActors(db);
  await growScale(db, ...SIZES[0]!);
  await db.close();
  const callgrind = { wrapper: ['valgrind', '--tool=callgrind', '--instr-atstart=no', `--callgrind-out-file=${out}`] };
  const env = { ...target.env, WEB_CONCURRENCY: '1', ...NAMES };
  /** Case 1's request to `url`, as the reader signed in with `token`. */
  const readAt = (url: string, apikey: string, token: string) => async () => {
    const r = await fetch(`${url}/rest/v1/services${SERVICES_QUERY}`, { headers: { apikey, authorization: `Bearer ${token}` } });
    if (r.status !== 200) throw new Error(`case 1 answered ${r.status}`);
    await r.arrayBuffer();
  };
  const server = await startServer(env, callgrind);
  let case1: Count;
  let case2: Count;
  let apikey: string;
  let reader: Session;
  try {
    apikey = await anonKey(server.url);
    reader = await signIn(server.url, apikey, actors.reader);
    let session: Session = await signIn(server.url, apikey, actors.refreshers[0]!);
    const refresh = async () => {
      const r = await fetch(`${server.url}/auth/v1/token?grant_type=refresh_token`, {
        method: 'POST',
        headers: { apikey, 'content-type': 'application/json' },
        body: JSON.stringify({ refresh_token: session.refresh_token }),
      });
      if (r.status !== 200) throw new Error(`case 2 answered ${r.status}`);
      session = (await r.json()) as Session;
    };
    case1 = await count(server, out, readAt(server.url, apikey, reader.access_token));
    case2 = await count(server, out, refresh);
  } finally {
    await server.stop();
    rmSync(out, { force: true });
  }
  // The floor has no sign-in: the reader's token from the server's stays valid, checked against
  // the server's issuer (its PUBLIC_URL).
  const floor = await startServer({ ...env, PUBLIC_URL: server.url }, { ...callgrind, entry: FLOOR });
  let floor1: Count;
  try {
    floor1 = await count(floor, out, readAt(floor.url, apikey, reader.access_token));
  } finally {
    await floor.stop();
    rmSync(out, { force: true });
  }
  const n = (x: number) => Math.round(x).toLocaleString('en');
  const line = (name: string, c: Count) =>
    `${name}: ${n(c.total)} instructions per request; ${n(own(c))} without the optimising compiler's thread (${n(c.compiler)})`;
  console.log(line('case 1 GET /rest/v1/services', case1));
  console.log(line('case 2 POST /auth/v1/token refresh', case2));
  console.log(line('case 1 on its floor (bench/lib/floor-server.ts)', floor1));
  const beyond = own(case1) - own(floor1);
  console.log(`the server beyond its floor, without the compiler: ${n(beyond)} (${Math.round((beyond / own(floor1)) * 100)} %)`);
} finally {
  await target.dispose();
}
