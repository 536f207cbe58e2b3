// The closed-loop loads, driven by wrk (Debian's, in C, scripted in Lua): its client costs the
// machine about what pgbench's does, where autocannon, a Node process, took a good part of one of
// the two cores the server and its database share (issue 40). Loads held to a rate stay with
// autocannon (bench/lib/drive.ts): wrk has no rate, and wrk2 is not packaged.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LoadResult, LoadSpec } from './load';

const WRK = process.env.WRK ?? '/usr/bin/wrk';
/** wrk's threads: the machine's two cores, as pgbench's -j 2. */
const THREADS = 2;
/** wrk runs so far in this process: names made in one run are never made again in the next. */
let runs = 0;
/** What done() prints before its JSON, to find it among wrk's own summary. */
const MARK = '@@nodeharbor-wrk@@';

/**
 * A Lua string literal: every byte outside printable ASCII, and quotes and backslashes, as \ddd,
 * always three digits: a shorter escape would take in a digit that follows it.
 */
function lua(s: string): string {
  const escape = (b: number) => `\\${String(b).padStart(3, '0')}`;
  return `"${[...Buffer.from(s, 'utf8')].map((b) => (b >= 0x20 && b < 0x7f && b !== 0x22 && b !== 0x5c ? String.fromCharCode(b) : escape(b))).join('')}"`;
}
const luaTable = (values: readonly string[]) => `{${values.map(lua).join(', ')}}`;
const luaHeaders = (h: Record<string, string>) =>
  `{${Object.entries(h)
    .map(([k, v]) => `[${lua(k)}] = ${lua(v)}`)
    .join(', ')}}`;

/**
 * Numbers each thread (setup runs in the main state), counts its answers by status, and prints the
 * run as JSON at the end: requests, duration, errors and latency percentiles, all as wrk measured them.
 */
const COMMON = `
local threads, nthreads = {}, 0
function setup(thread)
  thread:set("slot", nthreads)
  nthreads = nthreads + 1
  table.insert(threads, thread)
end
function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format('${MARK}{"requests":%d,"us":%d,"errors":%d,"p50":%f,"p99":%f}\\n',
    summary.requests, summary.duration, e.connect + e.read + e.write + e.status + e.timeout,
    latency:percentile(50) / 1000, latency:percentile(99) / 1000))
end
`;

/**
 * Each thread takes every THREADS-th of \`items\` as its queue; a request takes the queue's head and
 * its answer puts what the next request needs back: a session's new refresh token, or the user
 * whose service was just created. So no two requests in flight share one.
 */
const QUEUE = `
local queue = {}
function init(args)
  -- wrk calls the first thread's request() once before the run, to check it (script_verify_request
  -- in wrk.c); that call takes this placeholder instead of an item.
  if slot == 0 then queue[1] = "wrk-checks-the-request" end
  for i = slot + 1, #items, ${THREADS} do queue[#queue + 1] = items[i] end
end
`;

/** The Lua script of one scenario. */
function script(spec: LoadSpec): string {
  const s = spec.scenario;
  const head = `${COMMON}local method, path, headers = ${lua(s.method)}, ${lua(s.path)}, ${luaHeaders(s.headers)}\n`;
  if (s.kind === 'fixed') {
    // No request(): wrk formats the request once and sends the same bytes every time.
    return `${head}wrk.method, wrk.path, wrk.headers = method, path, headers\n${s.body !== undefined ? `wrk.body = ${lua(s.body)}\n` : ''}`;
  }
  if (s.kind === 'refresh-chain') {
    return `${head}local items = ${luaTable(s.tokens)}\n${QUEUE}
function request()
  local token = table.remove(queue, 1) or "none-left"
  return wrk.format(method, path, headers, '{"refresh_token":"' .. token .. '"}')
end
function response(status, hdrs, body)
  if status == 200 then
    local token = body:match('"refresh_token":"([^"]+)"')
    if token then queue[#queue + 1] = token end
  end
end
`;
  }
  // create-service: user n (1-based) is items[n]; a new name each time, which names the user, so that
  // the answer tells which user is free again.
  const users = s.tokens.map((_, i) => String(i + 1));
  const [before, after] = JSON.stringify({ ...s.args, p_name: '\u0000' }).split('\\u0000');
  return `${head}local tokens = ${luaTable(s.tokens)}
local items = ${luaTable(users)}
local run = ${lua(`${process.pid.toString(36)}${(runs++).toString(36)}`)}
local made = 0
${QUEUE}
function request()
  local user = table.remove(queue, 1) or "none"
  made = made + 1
  local h = {}
  for k, v in pairs(headers) do h[k] = v end
  h["authorization"] = "Bearer " .. (tokens[tonumber(user) or 0] or "")
  return wrk.format(method, path, h, ${lua(before!)} .. "b" .. user .. "x" .. run .. "x" .. slot .. "x" .. made .. ${lua(after!)})
end
function response(status, hdrs, body)
  -- jsonb writes a space after the colon. No user is free only if an answer lost one: that request
  -- then goes without a token and counts as an error, rather than piling onto a user's lock.
  local user = body:match('"name":%s*"b(%d+)x')
  if user then queue[#queue + 1] = user end
end
`;
}

/** One wrk run of `seconds`; its requests per second, latency percentiles (ms) and errors. */
async function wrk(spec: LoadSpec, seconds: number): Promise<LoadResult> {
  const dir = mkdtempSync(join(tmpdir(), 'nh-wrk-'));
  try {
    const file = join(dir, 'load.lua');
    writeFileSync(file, script(spec));
    // --timeout as autocannon's 10 s; a request unanswered by then counts as an error.
    const args = ['-t', String(THREADS), '-c', String(spec.connections), '-d', `${seconds}s`, '--timeout', '10s', '-s', file, spec.url];
    const out = await new Promise<string>((resolve, reject) => {
      const child = spawn(WRK, args, { stdio: ['ignore', 'pipe', 'pipe'] });
      let text = '';
      child.stdout.on('data', (d: Buffer) => (text += d.toString()));
      child.stderr.on('data', (d: Buffer) => (text += d.toString()));
      child.on('error', reject);
      child.on('exit', (code) => (code === 0 ? resolve(text) : reject(new Error(`wrk exited with ${code}:\n${text}`))));
    });
    const line = out.split('\n').find((l) => l.startsWith(MARK));
    if (!line) throw new Error(`wrk printed no result:\n${out}`);
    const r = JSON.parse(line.slice(MARK.length)) as { requests: number; us: number; errors: number; p50: number; p99: number };
    return { requests: r.requests, rps: r.requests / (r.us / 1e6), p50: r.p50, p99: r.p99, errors: r.errors };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * A closed-loop load: a warm-up, discarded, then the measured run. Refresh chains cut by the end of
 * a run (a rotation whose answer was never read) cannot go on, so each run starts from sessions of
 * its own: the first `connections` tokens warm up, the next ones are measured.
 */
export async function runWrk(spec: LoadSpec): Promise<LoadResult> {
  const s = spec.scenario;
  const part = (n: 0 | 1): LoadSpec =>
    s.kind === 'refresh-chain' ? { ...spec, scenario: { ...s, tokens: s.tokens.slice(n * spec.connections, (n + 1) * spec.connections) } } : spec;
  if (spec.warmupSeconds > 0) await wrk(part(0), spec.warmupSeconds);
  return wrk(part(1), spec.seconds);
}
