// Case 9: a two-level embed, GET /rest/v1/products with each product's services and each service's
// events, for the signed-in reader: lateral subqueries under RLS on three relations. Its ceiling is
// case 1's: pgbench (or, on PGlite, the same statements in-process) running the very SQL the server
// sends, under the same role and claims.
import type { Database } from '../../src/server/db/database';
import { claimsStatement, queryWithClaims } from '../../src/server/db/with-claims';
import { encryptionKeysStatement } from '../../src/server/db/with-encryption-keys';
import { runInProcess } from '../lib/in-process';
import type { LoadResult } from '../lib/load';
import { runPgbench } from '../lib/pgbench';
import { inline, pgbenchTransaction, tableRead } from '../lib/statements';
import type { Target } from '../lib/targets';
import { apiHeaders, loadOn, type Live, type Timing } from './context';
import { CONNECTIONS, readerContext } from './services-read';

export const EMBED_QUERY = '?select=id,name,services(id,name,service_events(event,created_at))&order=name&services.order=created_at.desc';

export function loadEmbedRead(live: Live, t: Timing): Promise<LoadResult> {
  return loadOn(live, t, {}, CONNECTIONS, {
    kind: 'fixed',
    method: 'GET',
    path: `/rest/v1/products${EMBED_QUERY}`,
    headers: apiHeaders(live, live.reader.access_token),
  });
}

export async function ceilingEmbedRead(target: Target, db: Database, live: Live, t: Timing): Promise<LoadResult> {
  const ctx = { ...readerContext(live), path: '/products' };
  const read = await tableRead(db, 'products', EMBED_QUERY);
  if (target.kind === 'pglite') return runInProcess(t.seconds, () => queryWithClaims(db, ctx, read));
  const script = pgbenchTransaction([inline(encryptionKeysStatement(live.target.keys())), inline(claimsStatement(ctx)), inline(read)]);
  return runPgbench(target.url!, script, CONNECTIONS, t.seconds, t.warmup);
}
