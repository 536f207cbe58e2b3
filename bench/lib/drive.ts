// The load generator, run as its own process (bench/lib/load.ts starts it) so that autocannon's work
// never runs on the server's event loop. Reads a LoadSpec as JSON from argv, prints a LoadResult as JSON.
import autocannon from 'autocannon';
import type { LoadResult, LoadSpec } from './load';

const spec = JSON.parse(process.argv[2]!) as LoadSpec;
type Ctx = { token?: string; user?: number };

let nextToken = 0;
let nextUser = 0;
let nextName = 0;

/** Builds the request of one scenario; per-connection state lives in autocannon's context. */
function request(): autocannon.Request {
  const s = spec.scenario;
  const base = { method: s.method, path: s.path, headers: s.headers };
  if (s.kind === 'fixed') return { ...base, ...(s.body !== undefined ? { body: s.body } : {}) };
  if (s.kind === 'refresh-chain') {
    // Each connection is one browser tab: it starts from its own session and always sends the
    // refresh token the previous answer gave it, as supabase-js does.
    return {
      ...base,
      setupRequest: (req: autocannon.Request, context: Ctx) => {
        context.token ??= s.tokens[nextToken++ % s.tokens.length];
        return { ...req, body: JSON.stringify({ refresh_token: context.token }) };
      },
      onResponse: (status: number, body: string, context: Ctx) => {
        if (status === 200) context.token = (JSON.parse(body) as { refresh_token: string }).refresh_token;
      },
    } as autocannon.Request;
  }
  // create-service: connection i is user i, so two connections never wait on one user's lock.
  return {
    ...base,
    setupRequest: (req: autocannon.Request, context: Ctx) => {
      context.user ??= nextUser++ % s.tokens.length;
      const name = `b${context.user.toString(36)}x${(nextName++).toString(36)}`;
      return {
        ...req,
        headers: { ...s.headers, authorization: `Bearer ${s.tokens[context.user]}` },
        body: JSON.stringify({ ...s.args, p_name: name }),
      };
    },
  } as autocannon.Request;
}

async function run(duration: number): Promise<autocannon.Result> {
  return autocannon({ url: spec.url, connections: spec.connections, duration, requests: [request()], timeout: 10 });
}

if (spec.warmupSeconds > 0) await run(spec.warmupSeconds);
const r = await run(spec.seconds);
const result: LoadResult = {
  requests: r.requests.total,
  rps: r.requests.average,
  p50: r.latency.p50,
  p99: r.latency.p99,
  errors: r.errors + r.timeouts + r.non2xx,
  statusCodes: Object.fromEntries(Object.entries(r.statusCodeStats ?? {}).map(([k, v]) => [k, (v as { count: number }).count])),
};
process.stdout.write(JSON.stringify(result));
