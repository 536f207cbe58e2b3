import { useMutation, useQueryClient } from '@tanstack/react-query';
import { getSupabase } from '@/lib/supabase';
import type { Service } from './types';

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
      queryClient.setQueryData<Service[]>(['services'], (old) => old?.filter((s) => s.id !== deleted.id));
      void queryClient.invalidateQueries({ queryKey: ['unused-services'] });
    },
  });
}
