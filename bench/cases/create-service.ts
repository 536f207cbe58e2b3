// Case 3: POST /rest/v1/rpc/create_service_securely, 16 connections for 16 users (one user per
// connection, so no two wait on one user's credit lock), against pgbench calling the function
// through the same statements under the same claims. The services made are deleted afterwards
// (seed.ts deleteCreatedServices), so that each run and size starts from the same rows.
import type { Database } from '../../src/server/db/database';
import { claimsStatement, queryWithClaims, type RequestContext } from '../../src/server/db/with-claims';
import { encryptionKeysStatement } from '../../src/server/db/with-encryption-keys';
import { jwtClaims } from '../lib/http';
import { runInProcess } from '../lib/in-process';
import type { LoadResult } from '../lib/load';
import { runPgbench } from '../lib/pgbench';
import { GALA_KEY, TOWN_STAR } from '../lib/seed';
import { inline, literal, pgbenchTransaction, rpcCall } from '../lib/statements';
import type { Target } from '../lib/targets';
import { apiHeaders, loadOn, type Live, type Pace, type Timing } from './context';

export const CONNECTIONS = 16;
const ARGS = { p_description: null, p_api_key: GALA_KEY, p_product_id: TOWN_STAR };

export function loadCreateService(live: Live, t: Timing, pace: Pace = {}): Promise<LoadResult> {
  return loadOn(live, t, pace, CONNECTIONS, {
    kind: 'create-service',
    method: 'POST',
    path: '/rest/v1/rpc/create_service_securely',
    headers: apiHeaders(live, ''),
    tokens: live.creators.map((s) => s.access_token),
    args: ARGS,
  });
}

function creatorContext(live: Live, token: string): RequestContext {
  return {
    role: 'authenticated',
    claims: jwtClaims(token),
    method: 'POST',
    path: '/rpc/create_service_securely',
    headers: { host: new URL(live.server.url).host, ...apiHeaders(live, token) },
    readOnly: false,
    statementTimeout: '8s',
  };
}

export async function ceilingCreateService(target: Target, db: Database, live: Live, t: Timing): Promise<LoadResult> {
  const contexts = live.creators.map((s) => creatorContext(live, s.access_token));
  const call = await rpcCall(db, 'create_service_securely', { ...ARGS, p_name: 'x' });
  if (target.kind === 'pglite') {
    return runInProcess(t.seconds, (i) =>
      queryWithClaims(db, contexts[Math.abs(i) % contexts.length]!, {
        sql: call.sql,
        params: [JSON.stringify({ ...ARGS, p_name: `c${(i + 1000).toString(36)}` })],
      }),
    );
  }
  // pgbench client i is user i mod 16, its claims read from a table; names come from a sequence.
  await db.exec(`
    drop schema if exists bench cascade;
    create schema bench;
    create table bench.actors (n int primary key, claims text not null, headers text not null);
    create sequence bench.names;
    grant usage on schema bench to authenticated;
    grant usage on sequence bench.names to authenticated;`);
  for (const [n, ctx] of contexts.entries()) {
    const claims = JSON.stringify({ ...ctx.claims, role: ctx.role });
    await db.query('insert into bench.actors values ($1, $2, $3)', [n, claims, JSON.stringify(ctx.headers)]);
  }
  const setClaims = inline(claimsStatement(contexts[0]!), {
    2: '(select claims from bench.actors where n = :u)',
    5: '(select headers from bench.actors where n = :u)',
  });
  const args = `json_build_object('p_name', 'q' || 100000 + nextval('bench.names'), 'p_description', null, 'p_api_key', ${literal(GALA_KEY)}, 'p_product_id', ${literal(TOWN_STAR)})::text`;
  const script = pgbenchTransaction(
    [inline(encryptionKeysStatement(target.keys())), setClaims, inline(call, { 1: args })],
    [`\\set u :client_id % ${contexts.length}`],
  );
  return runPgbench(target.url!, script, CONNECTIONS, t.seconds, t.warmup);
}
