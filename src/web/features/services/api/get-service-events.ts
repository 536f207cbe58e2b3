import { NODE_EVENTS, nodeEventText, type NodeEventDetail } from '@shared/node-health';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { getSupabase } from '@/lib/supabase';
import { NODE_POLL_MS } from './get-service';

/** How many of the latest events the service page tells. */
export const EVENTS_SHOWN = 15;

/**
 * The events of a service's life that the timeline tells besides the monitor's node events;
 * the rest (billing, the worker's housekeeping) have their own screens or mean nothing to an owner.
 */
const OTHER_EVENTS: Record<string, string> = {
  install_requested: 'Installation requested',
  installed: 'Node installed',
  logs_read: 'Logs read by an administrator',
  key_changed: 'Key changed',
  key_applied: 'New key handed to the node',
  key_update_failed: 'The new key could not be handed to the node',
  renamed: 'Renamed',
};

/** Events whose words depend on their detail. */
const eventText = (event: string, detail: Record<string, unknown> | null): string | undefined =>
  event === 'renamed' && typeof detail?.to === 'string' ? `Renamed to ${detail.to}` : undefined;

export type ServiceEvent = { id: number; event: string; created_at: string; text: string };

/** The latest events in words, newest first. */
export async function getServiceEvents(serviceId: string): Promise<ServiceEvent[]> {
  const supabase = await getSupabase();
  const { data, error } = await supabase
    .from('service_events')
    .select('id, event, detail, created_at')
    .eq('service_id', serviceId)
    .in('event', [...NODE_EVENTS, ...Object.keys(OTHER_EVENTS)])
    .order('id', { ascending: false })
    .limit(EVENTS_SHOWN);
  if (error) throw error;
  return (data as { id: number; event: string; detail: NodeEventDetail | null; created_at: string }[]).map((e) => ({
    id: e.id,
    event: e.event,
    created_at: e.created_at,
    // The filter above asks for these events only: each has its words.
    text: (nodeEventText(e.event, e.detail) ?? eventText(e.event, e.detail as Record<string, unknown> | null) ?? OTHER_EVENTS[e.event])!,
  }));
}

export const serviceEventsQueryOptions = (serviceId: string) =>
  queryOptions({ queryKey: ['services', serviceId, 'events'], queryFn: () => getServiceEvents(serviceId), refetchInterval: NODE_POLL_MS, staleTime: 0 });

export function useServiceEvents(serviceId: string) {
  return useQuery(serviceEventsQueryOptions(serviceId));
}
