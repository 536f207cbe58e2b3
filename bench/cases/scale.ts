// Case 4: does a request's time stay flat as the tables grow? p99 of case 1 and of the admin's
// user list (first page, as the admin page opens it) at each size of the scale data.
import type { Database } from '../../src/server/db/database';
import { queryWithClaims } from '../../src/server/db/with-claims';
import { jwtClaims } from '../lib/http';
import { runInProcess } from '../lib/in-process';
import type { LoadResult } from '../lib/load';
import { rpcCall, servicesRead } from '../lib/statements';
import { apiHeaders, loadOn, type Live, type Timing } from './context';
import { loadServicesRead, readerContext } from './services-read';

/** Scale data: [users, services]. */
export const SIZES: readonly (readonly [number, number])[] = [
  [10_000, 1_000],
  [100_000, 100_000],
  [100_000, 1_000_000],
];

/** A few admins at once: the list is a back-office page. */
export const ADMIN_CONNECTIONS = 8;
/** The admin page's page size (src/web/features/admin/components/user-management.tsx). */
const PAGE_SIZE = 20;

export function loadAdminList(live: Live, t: Timing): Promise<LoadResult> {
  return loadOn(live, t, {}, ADMIN_CONNECTIONS, {
    kind: 'fixed',
    method: 'POST',
    path: '/rest/v1/rpc/get_user_stats',
    headers: apiHeaders(live, live.admin.access_token),
    body: JSON.stringify(LIST_ARGS),
  });
}

const LIST_ARGS = { p_search: null, p_limit: PAGE_SIZE, p_offset: 0 };

export type DbTimes = { read: LoadResult; admin: LoadResult };

/**
 * The two statements alone, as the server sends them, back to back from this process with the
 * server stopped: their time in the database at this size, without HTTP, queueing or the noise
 * of 32 connections on two cores, to tell a growing plan from a busier machine.
 */
export async function measureDbTimes(db: Database, live: Live, seconds: number): Promise<DbTimes> {
  const read = await servicesRead(db);
  const list = await rpcCall(db, 'get_user_stats', LIST_ARGS);
  const admin = {
    role: 'authenticated' as const,
    claims: jwtClaims(live.admin.access_token),
    method: 'POST',
    path: '/rpc/get_user_stats',
    readOnly: true,
    statementTimeout: '8s',
  };
  return {
    read: await runInProcess(seconds, () => queryWithClaims(db, readerContext(live), read)),
    admin: await runInProcess(seconds, () => queryWithClaims(db, admin, list)),
  };
}

export type ScalePoint = { users: number; services: number; read: LoadResult; admin: LoadResult; db?: DbTimes };

export async function measureScale(live: Live, t: Timing, users: number, services: number): Promise<ScalePoint> {
  return { users, services, read: await loadServicesRead(live, t), admin: await loadAdminList(live, t) };
}
