// Case 2: POST /auth/v1/token?grant_type=refresh_token, each connection rotating its own session,
// against a bare Hono handler that only signs one JWT; and, to show how much of that ceiling the
// database leaves reachable, the server's rotation statement alone.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { ROTATE_LIVE_TOKEN } from '../../src/server/auth/sessions';
import type { Database } from '../../src/server/db/database';
import { ROOT } from '../../src/server/paths';
import { jwtClaims } from '../lib/http';
import { runInProcess } from '../lib/in-process';
import { runLoad, type LoadResult } from '../lib/load';
import { runPgbench } from '../lib/pgbench';
import { inline } from '../lib/statements';
import type { Target } from '../lib/targets';
import { loadOn, type Live, type Pace, type Timing } from './context';

export const CONNECTIONS = 32;

export function loadTokenRefresh(live: Live, t: Timing, pace: Pace = {}): Promise<LoadResult> {
  return loadOn(live, t, pace, CONNECTIONS, {
    kind: 'refresh-chain',
    method: 'POST',
    path: '/auth/v1/token?grant_type=refresh_token',
    headers: { apikey: live.apikey, 'content-type': 'application/json' },
    tokens: live.refreshers.map((s) => s.refresh_token),
  });
}

/** Any secret of the right length: the ceiling only signs. */
const SECRET = 'ceiling-jwt-secret-ceiling-jwt-secret-01';

export async function ceilingTokenRefresh(live: Live, t: Timing): Promise<LoadResult> {
  const claims = jwtClaims(live.refreshers[0]!.access_token);
  const child = spawn(process.execPath, ['--import', 'tsx', 'bench/lib/jwt-server.ts', JSON.stringify(claims), SECRET], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    const port = await new Promise<number>((resolve, reject) => {
      child.stdout.once('data', (d: Buffer) => resolve(Number(d.toString().trim())));
      child.once('exit', (code) => reject(new Error(`the JWT ceiling server exited with ${code}`)));
    });
    return await runLoad({
      url: `http://127.0.0.1:${port}`,
      connections: CONNECTIONS,
      seconds: t.seconds,
      warmupSeconds: t.warmup,
      scenario: { kind: 'fixed', method: 'POST', path: '/token', headers: { 'content-type': 'application/json' }, body: '{"refresh_token":"x"}' },
    });
  } finally {
    child.kill('SIGTERM');
  }
}

const CLIENT = { ip: '127.0.0.1', userAgent: 'autocannon' };

/** The live refresh token of the refreshers' session number `n` (their sessions ordered by id). */
const liveToken = (n: string) => `(select t.token from auth.refresh_tokens t
   where not t.revoked and t.session_id = (select s.id from auth.sessions s join auth.users u on u.id = s.user_id
                                            where u.email like 'refresher-%' order by s.id offset ${n} limit 1))`;

/**
 * The refresh grant's one statement (src/server/auth/sessions.ts) alone, `CONNECTIONS` callers each
 * rotating its own refresher's session, with the server stopped: no HTTP, no JWT, no JSON. A refresh
 * cannot go faster than this, so its ratio to the JWT ceiling is what the database leaves reachable.
 * Each rotation issues the SHA-256 (hex) of the token it spends, so that a caller knows its next
 * token without reading it back.
 */
export async function statementTokenRefresh(target: Target, db: Database, t: Timing): Promise<LoadResult> {
  if (target.kind === 'pglite') {
    const current: string[] = [];
    for (let n = 0; n < CONNECTIONS; n++) current.push((await db.query<{ token: string }>(`select ${liveToken('$1')} as token`, [n])).rows[0]!.token);
    return runInProcess(t.seconds, async (i) => {
      const n = Math.abs(i) % CONNECTIONS;
      const next = createHash('sha256').update(current[n]!).digest('hex');
      const rotated = await db.query(ROTATE_LIVE_TOKEN, [current[n], next, CLIENT.ip, CLIENT.userAgent]);
      if (rotated.rowCount !== 1) throw new Error('the rotation found no live token');
      current[n] = next;
    });
  }
  // pgbench: `cur` starts as 'none' (-D cannot differ per client), so a client's first rotation
  // reads its live token; then \gset keeps the next one from the statement's own row (no row fails).
  const spent = `(case when :cur = 'none' then ${liveToken(':client_id')} else :cur end)`;
  const next = `encode(sha256(convert_to(${spent}, 'UTF8')), 'hex')`;
  const statement = inline({ sql: ROTATE_LIVE_TOKEN, params: [null, null, CLIENT.ip, CLIENT.userAgent] }, { 1: spent, 2: next });
  const script = `${statement.replace(/\s+/g, ' ').replace(/ from u, s, ok$/, `, ${next} as cur from u, s, ok`)} \\gset\n`;
  return runPgbench(target.url!, script, CONNECTIONS, t.seconds, t.warmup, { vars: { cur: 'none' } });
}
