import { useMutation, useQueryClient } from '@tanstack/react-query';
import { getSupabase } from '@/lib/supabase';
import { servicesKeys } from '@/lib/query-keys';
import type { Service } from './types';
import type { ServiceWithPlan } from './get-service';

/** Turns a service's automatic renewal on or off (public.set_service_auto_renew); the server checks owner, state and second factor. */
export async function setAutoRenew(input: { serviceId: string; autoRenew: boolean }): Promise<Service> {
  const supabase = await getSupabase();
  const { data, error } = await supabase.rpc('set_service_auto_renew', { p_service_id: input.serviceId, p_auto_renew: input.autoRenew });
  if (error) throw error;
  return data as Service;
}

export function useSetAutoRenew() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: setAutoRenew,
    onSuccess: (changed) => {
      // The page shows the answer at once (no flicker back while it reads again)...
      queryClient.setQueryData<ServiceWithPlan | null>(servicesKeys.detail(changed.id), (old) =>
        old ? { ...old, service: { ...old.service, ...changed } } : old,
      );
      // ...then the list, the page and its events (the new one) are read again; Next Payment follows the list.
      void queryClient.invalidateQueries({ queryKey: servicesKeys.list() });
    },
    // Refused (expired or deleted meanwhile) or lost: the page shows what the server has now.
    onError: () => void queryClient.invalidateQueries({ queryKey: servicesKeys.list() }),
  });
}
