import { useMutation, useQueryClient } from '@tanstack/react-query';
import { getSupabase } from '@/lib/supabase';
import type { Service } from './types';
import { servicesKeys } from '@/lib/query-keys';

/** Puts a failed service back to installing; the worker tries the node again. */
export async function retryServiceInstallation(serviceId: string): Promise<Service> {
  const supabase = await getSupabase();
  const { data, error } = await supabase.rpc('retry_service_installation', { p_service_id: serviceId });
  if (error) throw error;
  return data as Service;
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
    },
    // Refused (retried elsewhere meanwhile) or lost: the list shows what the server has now.
    onError: () => void queryClient.invalidateQueries({ queryKey: servicesKeys.list() }),
  });
}
