import { queryOptions, useQuery } from '@tanstack/react-query';
import { getSupabase } from '@/lib/supabase';
import { NODE_POLL_MS } from './get-service';
import { servicesKeys } from '@/lib/query-keys';

/** How many times the node was started again after its run ended, in the last 24 hours: a count only, no rows. */
export async function getRestartCount(serviceId: string): Promise<number> {
  const supabase = await getSupabase();
  const { count, error } = await supabase
    .from('service_events')
    .select('id', { count: 'exact', head: true })
    .eq('service_id', serviceId)
    .eq('event', 'node_restarted')
    .gt('created_at', new Date(Date.now() - 86_400_000).toISOString());
  if (error) throw error;
  return count ?? 0;
}

export const restartCountQueryOptions = (serviceId: string) =>
  queryOptions({ queryKey: servicesKeys.of(serviceId, 'restarts'), queryFn: () => getRestartCount(serviceId), refetchInterval: NODE_POLL_MS, staleTime: 0 });

export function useRestartCount(serviceId: string) {
  return useQuery(restartCountQueryOptions(serviceId));
}
