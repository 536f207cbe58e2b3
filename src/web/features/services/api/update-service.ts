import { useMutation, useQueryClient } from '@tanstack/react-query';
import { getSupabase } from '@/lib/supabase';
import type { Service } from './types';
import { servicesKeys } from '@/lib/query-keys';

/** What the owner may change of a service: its name, or its key (which the server hands to the node). */
export type ServiceUpdates = { name: string } | { api_key: string };

/** manage_service_operation's update (spec §7); the server checks the creation rules again. */
export async function updateService(input: { serviceId: string; updates: ServiceUpdates }): Promise<Service> {
  const supabase = await getSupabase();
  const { data, error } = await supabase.rpc('manage_service_operation', {
    p_service_id: input.serviceId,
    p_operation: 'update',
    p_updates: input.updates,
  });
  if (error) throw error;
  return data as Service;
}

export function useUpdateService() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: updateService,
    // The list, the service page and its events all start with servicesKeys.list().
    onSuccess: () => queryClient.invalidateQueries({ queryKey: servicesKeys.list() }),
  });
}
