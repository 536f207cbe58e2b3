import { useMutation, useQueryClient } from '@tanstack/react-query';
import { getSupabase } from '@/lib/supabase';
import type { Service } from './types';
import { billingKeys, servicesKeys } from '@/lib/query-keys';

export type ExtendResult = Service & { charged: number; months: number };

export async function extendService(input: { serviceId: string; productId: string; months: number }): Promise<ExtendResult> {
  const supabase = await getSupabase();
  const { data, error } = await supabase.rpc('extend_service_expiration', {
    p_service_id: input.serviceId,
    p_product_id: input.productId,
    p_months: input.months,
  });
  if (error) throw error;
  return data as ExtendResult;
}

export function useExtendService() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: extendService,
    onSuccess: (extended) => {
      queryClient.setQueryData<Service[]>(servicesKeys.list(), (old) => old?.map((s) => (s.id === extended.id ? { ...s, ...extended } : s)));
      // The service's page: its renewal and its history (the new event).
      void queryClient.invalidateQueries({ queryKey: servicesKeys.detail(extended.id) });
      void queryClient.invalidateQueries({ queryKey: billingKeys.all });
    },
  });
}
