import { useMutation, useQueryClient } from '@tanstack/react-query';
import { getSupabase } from '@/lib/supabase';
import type { Service } from './types';
import { servicesKeys } from '@/lib/query-keys';

/** Marks the service for deletion; the worker stops the node and moves it to trash. */
export async function deleteService(serviceId: string): Promise<Service> {
  const supabase = await getSupabase();
  const { data, error } = await supabase.rpc('manage_service_operation', { p_service_id: serviceId, p_operation: 'delete' });
  if (error) throw error;
  return data as Service;
}

export function useDeleteService() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: deleteService,
    onSuccess: (deleted) => {
      // It stays listed as Deleting (the list polls meanwhile) until the worker moves it to trash.
      queryClient.setQueryData<Service[]>(servicesKeys.list(), (old) => old?.map((s) => (s.id === deleted.id ? deleted : s)));
      void queryClient.invalidateQueries({ queryKey: servicesKeys.unused() });
    },
  });
}
