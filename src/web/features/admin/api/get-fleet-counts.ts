import type { FleetState } from '@shared/node-health';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { getSupabase } from '@/lib/supabase';
import { FLEET_POLL_MS } from './get-fleet';
import { adminKeys } from '@/lib/query-keys';

/** How many services are in each fleet state; states with none are absent. */
export async function getFleetCounts(): Promise<Partial<Record<FleetState, number>>> {
  const supabase = await getSupabase();
  const { data, error } = await supabase.rpc('admin_fleet_counts');
  if (error) throw error;
  return Object.fromEntries((data as { state: FleetState; count: number }[]).map((r) => [r.state, Number(r.count)]));
}

export const fleetCountsQueryOptions = () =>
  queryOptions({ queryKey: adminKeys.fleetCounts(), queryFn: getFleetCounts, staleTime: 0, refetchInterval: FLEET_POLL_MS });

export function useFleetCounts() {
  return useQuery(fleetCountsQueryOptions());
}
