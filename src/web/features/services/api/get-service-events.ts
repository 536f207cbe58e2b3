import { queryOptions, useQuery } from '@tanstack/react-query';
import { getSupabase } from '@/lib/supabase';
import type { ServiceEventDetail } from '@shared/service-events';
import { NODE_POLL_MS } from './get-service';
import { servicesKeys } from '@/lib/query-keys';

/** How many of the latest events the service page's history tells. */
export const EVENTS_SHOWN = 50;

export type ServiceEvent = { id: number; event: string; detail: ServiceEventDetail | null; created_at: string };

/** The service's latest events, every kind the server writes, newest first (serviceEventText puts them in words). */
export async function getServiceEvents(serviceId: string): Promise<ServiceEvent[]> {
  const supabase = await getSupabase();
  const { data, error } = await supabase
    .from('service_events')
    .select('id, event, detail, created_at')
    .eq('service_id', serviceId)
    .order('id', { ascending: false })
    .limit(EVENTS_SHOWN);
  if (error) throw error;
  return data as ServiceEvent[];
}

export const serviceEventsQueryOptions = (serviceId: string) =>
  queryOptions({ queryKey: servicesKeys.of(serviceId, 'events'), queryFn: () => getServiceEvents(serviceId), refetchInterval: NODE_POLL_MS, staleTime: 0 });

export function useServiceEvents(serviceId: string) {
  return useQuery(serviceEventsQueryOptions(serviceId));
}
