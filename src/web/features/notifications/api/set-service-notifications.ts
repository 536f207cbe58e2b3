import type { ChannelRef } from '@shared/notifications';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { getSupabase } from '@/lib/supabase';
import { notificationsKeys } from '@/lib/query-keys';
import type { ServiceSettingRow } from './get-service-settings';

/** One service's channels to turn on or off: one for its own switch, all of them for Mute. */
export type ServiceChange = { serviceId: string; channels: { channel: ChannelRef; enabled: boolean }[] };

async function setServiceNotifications({ serviceId, channels }: ServiceChange): Promise<void> {
  const supabase = await getSupabase();
  for (const { channel, enabled } of channels) {
    const { error } = await supabase.rpc('set_service_notification', { p_service_id: serviceId, p_channel: channel, p_enabled: enabled });
    if (error) throw error;
  }
}

/** Saves a service's switches at once, shown as chosen meanwhile, and read back from the server if it refuses. */
export function useSetServiceNotifications() {
  const queryClient = useQueryClient();
  const key = notificationsKeys.serviceSettings();
  return useMutation({
    mutationFn: setServiceNotifications,
    onMutate: async ({ serviceId, channels }) => {
      await queryClient.cancelQueries({ queryKey: key });
      const before = queryClient.getQueryData<ServiceSettingRow[]>(key);
      const changed = new Set(channels.map((c) => c.channel));
      queryClient.setQueryData<ServiceSettingRow[]>(key, (rows = []) => [
        ...rows.filter((r) => r.service_id !== serviceId || !changed.has(r.channel)),
        ...channels.map((c) => ({ service_id: serviceId, channel: c.channel, enabled: c.enabled })),
      ]);
      return { before };
    },
    onError: (_e, _change, context) => queryClient.setQueryData(key, context?.before),
    onSettled: () => queryClient.invalidateQueries({ queryKey: key }),
  });
}
