import type { ChannelKind } from '@shared/notifications';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { functionError } from '@/lib/function-error';
import { getSupabase } from '@/lib/supabase';
import { notificationsKeys } from '@/lib/query-keys';

export type NewChannel = { kind: ChannelKind; name: string; url?: string };

/** What the server answers once: a webhook's signing secret, or the code and bot a Telegram chat is linked with. */
export type AddedChannel = { id: string; secret?: string; code?: string; bot?: string };

const FALLBACK = 'The channel could not be added. Please try again.';

/**
 * Adds a channel (the notification-channel function, which resolves the address and makes the
 * secret). Throws an Error with the server's own refusal (notificationMessages) when it refuses.
 */
async function addChannel(input: NewChannel): Promise<AddedChannel> {
  const supabase = await getSupabase();
  const { data, error } = await supabase.functions.invoke<AddedChannel>('notification-channel', { body: input });
  if (!error) return data!;
  throw await functionError(error, FALLBACK);
}

export function useAddChannel() {
  const queryClient = useQueryClient();
  return useMutation({ mutationFn: addChannel, onSuccess: () => queryClient.invalidateQueries({ queryKey: notificationsKeys.channels() }) });
}
