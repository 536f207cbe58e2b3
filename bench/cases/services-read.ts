// Case 1: GET /rest/v1/services for a signed-in user (RLS on), against pgbench (or, on PGlite, the
// same statements in-process) running the very SQL the server sends, under the same role and claims.
import type { Database } from '../../src/server/db/database';
import { claimsStatement, queryWithClaims, type RequestContext } from '../../src/server/db/with-claims';
import { encryptionKeysStatement } from '../../src/server/db/with-encryption-keys';
import { jwtClaims } from '../lib/http';
import { runInProcess } from '../lib/in-process';
import type { LoadResult } from '../lib/load';
import { runPgbench } from '../lib/pgbench';
import { inline, pgbenchTransaction, SERVICES_QUERY, servicesRead } from '../lib/statements';
import type { Target } from '../lib/targets';
import { apiHeaders, loadOn, type Live, type Pace, type Timing } from './context';

export const CONNECTIONS = 32;

export function loadServicesRead(live: Live, t: Timing, pace: Pace = {}): Promise<LoadResult> {
  return loadOn(live, t, pace, CONNECTIONS, {
    kind: 'fixed',
    method: 'GET',
    path: `/rest/v1/services${SERVICES_QUERY}`,
    headers: apiHeaders(live, live.reader.access_token),
  });
}

/** What the server puts in the transaction for the reader's request (src/server/rest/execute.ts). */
export function readerContext(live: Live): RequestContext {
  return {
    role: 'authenticated',
    claims: jwtClaims(live.reader.access_token),
    method: 'GET',
    path: '/services',
    headers: { host: new URL(live.server.url).host, ...apiHeaders(live, live.reader.access_token) },
    readOnly: true,
    statementTimeout: '8s',
  };
}

/**
 * The ceiling: per transaction, BEGIN, the keys, the claims statement, the read, COMMIT, exactly the SQL
 * the server sends; with pgbench on 32 clients, or back to back in this process on PGlite.
 */
export async function ceilingServicesRead(target: Target, db: Database, live: Live, t: Timing): Promise<LoadResult> {
  if (target.kind === 'pglite') {
    const ctx = readerContext(live);
    const read = await servicesRead(db);
    return runInProcess(t.seconds, () => queryWithClaims(db, ctx, read));
  }
  return runPgbench(target.url!, await readerTransaction(db, live), CONNECTIONS, t.seconds, t.warmup);
}

async function readerTransaction(db: Database, live: Live): Promise<string> {
  return pgbenchTransaction([
    inline(encryptionKeysStatement(live.target.keys())),
    inline(claimsStatement(readerContext(live))),
    inline(await servicesRead(db)),
  ]);
}

/**
 * The same pgbench run with each statement parsed and planned every time, as the server sent them
 * before it prepared them (decision 007): how much of the ceiling is preparation.
 */
export async function unpreparedServicesRead(target: Target, db: Database, live: Live, t: Timing): Promise<LoadResult | undefined> {
  if (target.kind === 'pglite') return undefined;
  return runPgbench(target.url!, await readerTransaction(db, live), CONNECTIONS, t.seconds, t.warmup, { mode: 'extended' });
}
