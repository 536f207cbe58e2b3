import { useQuery } from '@tanstack/react-query';
import { getSupabase } from '@/lib/supabase';
import { notificationsKeys } from '@/lib/query-keys';

export type ServiceName = { id: string; name: string };

/** The customer's services by name, for their per-service switches: the services feature's list carries far more. */
async function getNotificationServices(): Promise<ServiceName[]> {
  const supabase = await getSupabase();
  const { data, error } = await supabase.from('services').select('id, name').eq('is_deleted', false).order('name', { ascending: true });
  if (error) throw error;
  return data as ServiceName[];
}

export function useNotificationServices() {
  return useQuery({ queryKey: notificationsKeys.services(), queryFn: getNotificationServices });
}
