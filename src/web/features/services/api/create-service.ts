import { useMutation, useQueryClient } from '@tanstack/react-query';
import { getSupabase } from '@/lib/supabase';
import type { Service } from './types';
import { billingKeys, servicesKeys } from '@/lib/query-keys';

export type CreateServiceResult = Service & { reused: boolean; charged: number };

/** The server checks, charges or reuses an unused purchased service, all in one transaction. */
export async function createService(input: { name: string; apiKey: string; productId: string }): Promise<CreateServiceResult> {
  const supabase = await getSupabase();
  const { data, error } = await supabase.rpc('create_service_securely', {
    p_name: input.name,
    p_description: null,
    p_api_key: input.apiKey,
    p_product_id: input.productId,
  });
  if (error) throw error;
  return data as CreateServiceResult;
}

export function useCreateService() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: createService,
    onSuccess: (created) => {
      queryClient.setQueryData<Service[]>(servicesKeys.list(), (old) => [created, ...(old ?? []).filter((s) => s.id !== created.id)]);
      void queryClient.invalidateQueries({ queryKey: servicesKeys.list() });
      void queryClient.invalidateQueries({ queryKey: servicesKeys.unused() });
      void queryClient.invalidateQueries({ queryKey: billingKeys.all });
    },
  });
}
