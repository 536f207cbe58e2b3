import type { UsageRange } from '@shared/node-usage';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { getSupabase } from '@/lib/supabase';
import { servicesKeys } from '@/lib/query-keys';
import { NODE_POLL_MS } from './get-service';

/** One point of what a node used (public.service_usage): a minute's, or an hour's average. */
export type UsagePoint = {
  at: string;
  cpu_percent: number;
  memory_mib: number;
  memory_limit_mib: number | null;
  rx_bytes_per_second: number;
  tx_bytes_per_second: number;
};

export async function getServiceUsage(serviceId: string, range: UsageRange): Promise<UsagePoint[]> {
  const supabase = await getSupabase();
  const { data, error } = await supabase.rpc('service_usage', { p_service_id: serviceId, p_range: range });
  if (error) throw error;
  return data as UsagePoint[];
}

export function useServiceUsage(serviceId: string, range: UsageRange) {
  return useQuery(
    queryOptions({
      queryKey: servicesKeys.of(serviceId, `usage-${range}`),
      queryFn: () => getServiceUsage(serviceId, range),
      refetchInterval: NODE_POLL_MS,
      staleTime: 0,
    }),
  );
}
