import type { ChannelRef } from '@shared/notifications';
import { useQuery } from '@tanstack/react-query';
import { getSupabase } from '@/lib/supabase';
import { notificationsKeys } from '@/lib/query-keys';

/** A choice the customer changed from the default (every event on, for every channel). */
export type PreferenceRow = { channel: ChannelRef; event: string; enabled: boolean };

async function getPreferences(): Promise<PreferenceRow[]> {
  const supabase = await getSupabase();
  const { data, error } = await supabase.from('my_notification_preferences').select('channel, event, enabled');
  if (error) throw error;
  return data as PreferenceRow[];
}

export function usePreferences() {
  return useQuery({ queryKey: notificationsKeys.preferences(), queryFn: getPreferences });
}
