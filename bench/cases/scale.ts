// Case 4: does a request's time stay flat as the tables grow? p99 of case 1 and of the admin's
// user list (first page, as the admin page opens it) at each size of the scale data.
import { runLoad, type LoadResult } from '../lib/load';
import { apiHeaders, type Live, type Timing } from './context';
import { loadServicesRead } from './services-read';

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
  return runLoad({
    url: live.server.url,
    connections: ADMIN_CONNECTIONS,
    seconds: t.seconds,
    warmupSeconds: t.warmup,
    scenario: {
      kind: 'fixed',
      method: 'POST',
      path: '/rest/v1/rpc/get_user_stats',
      headers: apiHeaders(live, live.admin.access_token),
      body: JSON.stringify({ p_search: null, p_limit: PAGE_SIZE, p_offset: 0 }),
    },
  });
}

export type ScalePoint = { users: number; services: number; read: LoadResult; admin: LoadResult };

export async function measureScale(live: Live, t: Timing, users: number, services: number): Promise<ScalePoint> {
  return { users, services, read: await loadServicesRead(live, t), admin: await loadAdminList(live, t) };
}
