import { queryOptions, useQuery } from '@tanstack/react-query';
import { getSupabase } from '@/lib/supabase';
import { NODE_POLL_MS } from './get-service';
import { servicesKeys } from '@/lib/query-keys';

/** Whether the node was stopped on request, and since when (public.service_power, migration 0047). */
export type ServicePower = { stopped_at: string | null };

/** The caller's own service's power state; null when it is not theirs (or not at all). */
export async function getServicePower(serviceId: string): Promise<ServicePower | null> {
  const supabase = await getSupabase();
  const { data, error } = await supabase.from('service_power').select('stopped_at').eq('service_id', serviceId).maybeSingle();
  if (error) throw error;
  return data as ServicePower | null;
}

export const servicePowerQueryOptions = (serviceId: string) =>
  queryOptions({ queryKey: servicesKeys.of(serviceId, 'power'), queryFn: () => getServicePower(serviceId), refetchInterval: NODE_POLL_MS, staleTime: 0 });

export function useServicePower(serviceId: string) {
  return useQuery(servicePowerQueryOptions(serviceId));
}
