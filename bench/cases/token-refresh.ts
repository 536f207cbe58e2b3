// Case 2: POST /auth/v1/token?grant_type=refresh_token, each connection rotating its own session,
// against a bare Hono handler that only signs one JWT.
import { spawn } from 'node:child_process';
import { ROOT } from '../../src/server/paths';
import { jwtClaims } from '../lib/http';
import { runLoad, type LoadResult } from '../lib/load';
import type { Live, Timing } from './context';

export const CONNECTIONS = 32;

export function loadTokenRefresh(live: Live, t: Timing): Promise<LoadResult> {
  return runLoad({
    url: live.server.url,
    connections: CONNECTIONS,
    seconds: t.seconds,
    warmupSeconds: t.warmup,
    scenario: {
      kind: 'refresh-chain',
      method: 'POST',
      path: '/auth/v1/token?grant_type=refresh_token',
      headers: { apikey: live.apikey, 'content-type': 'application/json' },
      tokens: live.refreshers.map((s) => s.refresh_token),
    },
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
