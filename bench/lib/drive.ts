// The loads held to a rate (the soak's; wrk drives the others, bench/lib/wrk.ts), run as its own process
// (bench/lib/load.ts starts it) so that autocannon's work never runs on the server's event loop. Reads a
// LoadSpec as JSON from argv, prints a LoadResult as JSON.
import autocannon from 'autocannon';
import type { LoadResult, LoadSpec } from './load';

const spec = JSON.parse(process.argv[2]!) as LoadSpec;
type Ctx = { token?: string; user?: number };

let nextName = 0;
/** Names differ between runs too: the soak runs one generator after another on the same users. */
const RUN = process.pid.toString(36);

/**
 * Builds the request of one scenario. autocannon clears a connection's context before each of its
 * requests, but onResponse still sees the context of the request it answers: so what a connection
 * holds (a session's latest refresh token, a user) is taken from a shared queue when a request is
 * built and given back when its response arrives, and no two requests in flight ever share one.
 */
function request(queue: (string | number)[]): autocannon.Request {
  const s = spec.scenario;
  const base = { method: s.method, path: s.path, headers: s.headers };
  if (s.kind === 'fixed') return { ...base, ...(s.body !== undefined ? { body: s.body } : {}) };
  if (s.kind === 'refresh-chain') {
    // A session's next refresh token is the one the previous answer gave, as in supabase-js.
    return {
      ...base,
      setupRequest: (req: autocannon.Request, context: Ctx) => {
        context.token = queue.shift() as string | undefined;
        return { ...req, body: JSON.stringify({ refresh_token: context.token ?? 'none-left' }) };
      },
      onResponse: (status: number, body: string) => {
        if (status === 200) queue.push((JSON.parse(body) as { refresh_token: string }).refresh_token);
      },
    } as autocannon.Request;
  }
  // create-service: one request per user at a time, so no two wait on one user's credit lock.
  return {
    ...base,
    setupRequest: (req: autocannon.Request, context: Ctx) => {
      context.user = (queue.shift() as number | undefined) ?? 0;
      const name = `b${context.user.toString(36)}x${RUN}x${(nextName++).toString(36)}`;
      return {
        ...req,
        headers: { ...s.headers, authorization: `Bearer ${s.tokens[context.user]}` },
        body: JSON.stringify({ ...s.args, p_name: name }),
      };
    },
    onResponse: (_status: number, _body: string, context: Ctx) => {
      queue.push(context.user!);
    },
  } as autocannon.Request;
}

/**
 * One autocannon run. Refresh chains cut by the end of a run (a rotation whose answer was never
 * read) cannot go on, so the warm-up and the measured run start from sessions of their own.
 */
async function run(duration: number, part: 0 | 1): Promise<autocannon.Result> {
  const s = spec.scenario;
  let queue: (string | number)[] = [];
  if (s.kind === 'refresh-chain') queue = s.tokens.slice(part * spec.connections, (part + 1) * spec.connections);
  if (s.kind === 'create-service') queue = s.tokens.map((_, i) => i);
  return autocannon({
    url: spec.url,
    connections: spec.connections,
    duration,
    requests: [request(queue)],
    timeout: 10,
    ...(spec.rate !== undefined ? { overallRate: spec.rate } : {}),
  });
}

if (spec.warmupSeconds > 0) await run(spec.warmupSeconds, 0);
const r = await run(spec.seconds, 1);
const result: LoadResult = {
  requests: r.requests.total,
  rps: r.requests.average,
  p50: r.latency.p50,
  p99: r.latency.p99,
  errors: r.errors + r.timeouts + r.non2xx,
};
process.stdout.write(JSON.stringify(result));
