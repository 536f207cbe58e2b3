import { queryOptions, useQuery } from '@tanstack/react-query';
import { getSupabase } from '@/lib/supabase';
import { servicesKeys } from '@/lib/query-keys';

/** A purchased service that was deleted before its paid period ended: it can be reused (spec §3). */
export type UnusedService = {
  id: string;
  name: string;
  description: string | null;
  product_id: string;
  product_name: string;
  product_price: number;
  created_at: string;
  renews_at: string | null;
};

export async function getUnusedServices(userId: string): Promise<UnusedService[]> {
  const supabase = await getSupabase();
  const { data, error } = await supabase.rpc('get_unused_purchased_services', { p_user_id: userId });
  if (error) throw error;
  return (data as UnusedService[]).map((s) => ({ ...s, product_price: Number(s.product_price) }));
}

export const unusedServicesQueryOptions = (userId: string) =>
  queryOptions({ queryKey: servicesKeys.unusedOf(userId), queryFn: () => getUnusedServices(userId) });

export function useUnusedServices(userId: string) {
  return useQuery(unusedServicesQueryOptions(userId));
}
