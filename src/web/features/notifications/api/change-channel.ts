import { useMutation, useQueryClient } from '@tanstack/react-query';
import { getSupabase } from '@/lib/supabase';
import { notificationsKeys } from '@/lib/query-keys';

/** Removes a channel (remove_notification_channel); its preferences and log go with it. */
async function removeChannel(channelId: string): Promise<void> {
  const supabase = await getSupabase();
  const { error } = await supabase.rpc('remove_notification_channel', { p_channel_id: channelId });
  if (error) throw error;
}

/** Brings a disabled channel back to active, its failures forgotten (enable_notification_channel). */
async function enableChannel(channelId: string): Promise<void> {
  const supabase = await getSupabase();
  const { error } = await supabase.rpc('enable_notification_channel', { p_channel_id: channelId });
  if (error) throw error;
}

/** A fresh one-time code for a Telegram channel still waiting for its chat (new_telegram_code). */
async function newTelegramCode(channelId: string): Promise<string> {
  const supabase = await getSupabase();
  const { data, error } = await supabase.rpc('new_telegram_code', { p_channel_id: channelId });
  if (error) throw error;
  return data as string;
}

function useChannelMutation<T>(mutationFn: (channelId: string) => Promise<T>) {
  const queryClient = useQueryClient();
  // Every channel change reaches the matrix and the services' switches too (a removed channel's column goes).
  return useMutation({ mutationFn, onSettled: () => queryClient.invalidateQueries({ queryKey: notificationsKeys.all }) });
}

export const useRemoveChannel = () => useChannelMutation(removeChannel);
export const useEnableChannel = () => useChannelMutation(enableChannel);
export const useNewTelegramCode = () => useChannelMutation(newTelegramCode);
