import { queryOptions, useQuery } from '@tanstack/react-query';
import { getSupabase } from '@/lib/supabase';
import { displayStatus, isChanging } from '../service-status';
import { NODE_POLL_MS } from './get-service';
import type { Service } from './types';
import { servicesKeys } from '@/lib/query-keys';
import { useBillingFollowsRefunds } from './use-billing-follows-refunds';

/**
 * Poll while something changes on the server side (install, delete) so statuses move without a
 * reload, and slowly while a node is watched so that its badge follows the monitor; a failed
 * install waits for Retry.
 */
const BUSY_POLL_MS = 3000;

export async function getServices(): Promise<Service[]> {
  const supabase = await getSupabase();
  const { data, error } = await supabase.from('services').select('*').eq('is_deleted', false).order('created_at', { ascending: false });
  if (error) throw error;
  return data as Service[];
}

export const servicesQueryOptions = () =>
  queryOptions({
    queryKey: servicesKeys.list(),
    queryFn: getServices,
    refetchInterval: (q) =>
      q.state.data?.some((s) => isChanging(displayStatus(s))) ? BUSY_POLL_MS : q.state.data?.some((s) => s.node_state) ? NODE_POLL_MS : false,
  });

export function useServices() {
  const query = useQuery(servicesQueryOptions());
  useBillingFollowsRefunds(query.data);
  return query;
}
