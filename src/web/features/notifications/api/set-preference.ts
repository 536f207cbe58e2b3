import type { ChannelRef, NotificationEvent } from '@shared/notifications';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { getSupabase } from '@/lib/supabase';
import { notificationsKeys } from '@/lib/query-keys';
import type { PreferenceRow } from './get-preferences';

export type PreferenceChange = { channel: ChannelRef; event: NotificationEvent; enabled: boolean };

async function setPreference({ channel, event, enabled }: PreferenceChange): Promise<void> {
  const supabase = await getSupabase();
  const { error } = await supabase.rpc('set_notification_preference', { p_channel: channel, p_event: event, p_enabled: enabled });
  if (error) throw error;
}

/** Saves one switch of the matrix at once: shown as chosen while it is saved, and put back if the server refuses. */
export function useSetPreference() {
  const queryClient = useQueryClient();
  const key = notificationsKeys.preferences();
  return useMutation({
    mutationFn: setPreference,
    onMutate: async (change) => {
      await queryClient.cancelQueries({ queryKey: key });
      const before = queryClient.getQueryData<PreferenceRow[]>(key);
      queryClient.setQueryData<PreferenceRow[]>(key, (rows = []) => [
        ...rows.filter((r) => r.channel !== change.channel || r.event !== change.event),
        { channel: change.channel, event: change.event, enabled: change.enabled },
      ]);
      return { before };
    },
    onError: (_e, _change, context) => queryClient.setQueryData(key, context?.before),
    onSettled: () => queryClient.invalidateQueries({ queryKey: key }),
  });
}
