import { useMutation, useQueryClient } from '@tanstack/react-query';
import { functionError } from '@/lib/function-error';
import { getSupabase } from '@/lib/supabase';
import { notificationsKeys } from '@/lib/query-keys';

const FALLBACK = 'The test could not be sent. Please try again.';

/** Queues a test message to the channel (notification-test); refused over the hourly limit or when the channel is not active. */
async function sendTest(channelId: string): Promise<void> {
  const supabase = await getSupabase();
  const { error } = await supabase.functions.invoke('notification-test', { body: { channelId } });
  if (error) throw await functionError(error, FALLBACK);
}

export function useSendTest() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: sendTest,
    onSuccess: (_, channelId) => queryClient.invalidateQueries({ queryKey: notificationsKeys.attempts(channelId) }),
  });
}
