import { DELIVERY_LOG_SIZE } from '@shared/notifications';
import { useQuery } from '@tanstack/react-query';
import { getSupabase } from '@/lib/supabase';
import { notificationsKeys } from '@/lib/query-keys';

/** One delivery attempt of a channel, newest first. */
export type DeliveryAttempt = { id: string; attempted_at: string; event: string; ok: boolean; status_code: number | null; error: string | null };

async function getAttempts(channelId: string): Promise<DeliveryAttempt[]> {
  const supabase = await getSupabase();
  const { data, error } = await supabase
    .from('my_notification_attempts')
    .select('id, attempted_at, event, ok, status_code, error')
    .eq('channel_id', channelId)
    .order('attempted_at', { ascending: false })
    .limit(DELIVERY_LOG_SIZE);
  if (error) throw error;
  return data as DeliveryAttempt[];
}

/** While the log is open it is read again this often: a test sent a moment ago shows once it has been tried. */
const OPEN_LOG_POLL_MS = 5000;

/** Read only while the delivery log is open, each time it opens and every few seconds. */
export function useAttempts(channelId: string, open: boolean) {
  return useQuery({
    queryKey: notificationsKeys.attempts(channelId),
    queryFn: () => getAttempts(channelId),
    enabled: open,
    staleTime: 0,
    refetchInterval: open ? OPEN_LOG_POLL_MS : false,
  });
}
