import { queryOptions, useQuery } from '@tanstack/react-query';
import { getSupabase } from '@/lib/supabase';
import type { Product, Service } from './types';
import { servicesKeys } from '@/lib/query-keys';
import { useBillingFollowsRefunds } from './use-billing-follows-refunds';

/** The service page's node data is read again this often while the page is open (never on focus: the client's default). */
export const NODE_POLL_MS = 30_000;

export type ServiceWithPlan = { service: Service; product: Product | null };

/**
 * One of the caller's services and its plan, or null: another user's service is as absent as
 * one that never existed (the services view shows each owner only theirs).
 */
export async function getService(serviceId: string): Promise<ServiceWithPlan | null> {
  const supabase = await getSupabase();
  const { data, error } = await supabase.from('services').select('*').eq('id', serviceId).eq('is_deleted', false).maybeSingle();
  if (error) throw error;
  if (!data) return null;
  const service = data as Service;
  if (!service.product_id) return { service, product: null };
  // Readable while the plan is on sale; for one that no longer is, the uptime rows still carry its threshold.
  const plan = await supabase.from('products').select('*').eq('id', service.product_id).maybeSingle();
  if (plan.error) throw plan.error;
  return { service, product: plan.data as Product | null };
}

export const serviceQueryOptions = (serviceId: string) =>
  queryOptions({ queryKey: servicesKeys.detail(serviceId), queryFn: () => getService(serviceId), refetchInterval: NODE_POLL_MS, staleTime: 0 });

export function useService(serviceId: string) {
  const query = useQuery(serviceQueryOptions(serviceId));
  useBillingFollowsRefunds(query.data ? [query.data.service] : undefined);
  return query;
}
