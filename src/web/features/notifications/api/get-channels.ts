import type { ChannelKind, ChannelState } from '@shared/notifications';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { getSupabase } from '@/lib/supabase';
import { notificationsKeys } from '@/lib/query-keys';

/** One of the signed-in user's channels, as public.my_notification_channels shows it: never its secret target. */
export type NotificationChannel = {
  id: string;
  kind: ChannelKind;
  name: string;
  state: ChannelState;
  target_hint: string;
  telegram_code: string | null;
  telegram_code_expires_at: string | null;
  failures: number;
  disabled_reason: string | null;
  created_at: string;
};

/** While a Telegram chat is being linked the list is read again this often, so that it turns Active on its own. */
export const PENDING_POLL_MS = 3000;

async function getChannels(): Promise<NotificationChannel[]> {
  const supabase = await getSupabase();
  const { data, error } = await supabase.from('my_notification_channels').select('*').order('created_at', { ascending: true });
  if (error) throw error;
  return data as NotificationChannel[];
}

export const channelsQueryOptions = () =>
  queryOptions({
    queryKey: notificationsKeys.channels(),
    queryFn: getChannels,
    refetchInterval: (q) => (q.state.data?.some((c) => c.state === 'pending') ? PENDING_POLL_MS : false),
  });

export function useChannels() {
  return useQuery(channelsQueryOptions());
}
