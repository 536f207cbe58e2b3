import type { FleetSort, FleetState } from '@shared/node-health';
import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';
import { getSupabase } from '@/lib/supabase';
import { adminKeys } from '@/lib/query-keys';

export type FleetRow = {
  service_id: string;
  name: string;
  user_id: string;
  email: string;
  product: string | null;
  created_at: string;
  state: FleetState;
  service_state: string;
  host: string | null;
  last_seen_at: string | null;
  reason: string | null;
  provisioning_error: string | null;
  restarts_24h: number;
  /** USD a month: its price a month less its server's cost; null without a recorded cost or a node. */
  monthly_margin: number | null;
  /** When its node was stopped on request (Stop); null while it is meant to run. */
  stopped_at: string | null;
  /** A failed installation whose charge went back to its owner: only the owner can retry it (it charges again). */
  install_refunded?: boolean;
  total_count: number;
};

/** `search`: an owner's e-mail, a service's name, a product or a host, or part of one (any case); '' for all. */
export type FleetQuery = { state: FleetState | null; search: string; sort: FleetSort; descending: boolean; limit: number; offset: number };
export type FleetPage = { rows: FleetRow[]; total: number };

/** Watched nodes are read again this often; services the worker is moving (installing, deleting) more often. */
export const FLEET_POLL_MS = 30_000;
const BUSY_POLL_MS = 3000;

/** One page of every user's services, filtered and sorted on the server, before the page is cut (admins only, admin_fleet). */
export async function getFleet(q: FleetQuery): Promise<FleetPage> {
  const supabase = await getSupabase();
  const { data, error } = await supabase.rpc('admin_fleet', {
    p_state: q.state,
    p_sort: q.sort,
    p_descending: q.descending,
    p_limit: q.limit,
    p_offset: q.offset,
    p_search: q.search || null,
  });
  if (error) throw error;
  const rows = data as FleetRow[];
  return { rows, total: Number(rows[0]?.total_count ?? 0) };
}

export const fleetQueryOptions = (q: FleetQuery) =>
  queryOptions({
    queryKey: adminKeys.fleetPage(q),
    queryFn: () => getFleet(q),
    staleTime: 0,
    refetchInterval: (query) => (query.state.data?.rows.some((r) => r.state === 'installing' || r.state === 'deleting') ? BUSY_POLL_MS : FLEET_POLL_MS),
  });

export function useFleet(q: FleetQuery) {
  return useQuery({ ...fleetQueryOptions(q), placeholderData: keepPreviousData });
}
