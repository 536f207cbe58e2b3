import { useMutation, useQueryClient } from '@tanstack/react-query';
import { getSupabase } from '@/lib/supabase';
import type { Service } from './types';
import { billingKeys, servicesKeys } from '@/lib/query-keys';

export type RetryInput = {
  serviceId: string;
  /** The price the owner was shown and confirmed, when the retry charges (its charge came back when it failed). */
  charge?: number;
};

/** Puts a failed service back to installing; the worker tries the node again. The server charges only the price confirmed. */
export async function retryServiceInstallation({ serviceId, charge }: RetryInput): Promise<Service & { charged?: number }> {
  const supabase = await getSupabase();
  const { data, error } = await supabase.rpc('retry_service_installation', { p_service_id: serviceId, ...(charge === undefined ? {} : { p_charge: charge }) });
  if (error) throw error;
  return data as Service & { charged?: number };
}

export function useRetryServiceInstallation() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: retryServiceInstallation,
    // Installing again: the new data restarts the list's polling until the node runs or fails.
    onSuccess: (retried) => {
      queryClient.setQueryData<Service[]>(servicesKeys.list(), (old) => old?.map((s) => (s.id === retried.id ? { ...s, ...retried } : s)));
      // The service's page: its state and its history (the retry).
      void queryClient.invalidateQueries({ queryKey: servicesKeys.detail(retried.id) });
      // A retry that charged moved the balance and the ledger.
      if (Number(retried.charged ?? 0) > 0) void queryClient.invalidateQueries({ queryKey: billingKeys.all });
    },
    // Refused (retried elsewhere meanwhile) or lost: the list shows what the server has now.
    onError: () => void queryClient.invalidateQueries({ queryKey: servicesKeys.list() }),
  });
}
