import type { ChannelRef } from '@shared/notifications';
import { useQuery } from '@tanstack/react-query';
import { getSupabase } from '@/lib/supabase';
import { notificationsKeys } from '@/lib/query-keys';

/** A channel turned off (or back on) for one service; a channel without a row is on. */
export type ServiceSettingRow = { service_id: string; channel: ChannelRef; enabled: boolean };

async function getServiceSettings(): Promise<ServiceSettingRow[]> {
  const supabase = await getSupabase();
  const { data, error } = await supabase.from('my_service_notification_settings').select('service_id, channel, enabled');
  if (error) throw error;
  return data as ServiceSettingRow[];
}

export function useServiceSettings() {
  return useQuery({ queryKey: notificationsKeys.serviceSettings(), queryFn: getServiceSettings });
}
