import type { PowerAction } from '@shared/power-actions';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { getSupabase } from '@/lib/supabase';
import { servicesKeys } from '@/lib/query-keys';

/** The server's answer: what the buttons need (never the key: an admin may ask for someone else's service). */
export type PoweredService = { id: string; name: string; state: string; stopped_at: string | null };

/** Restart, Stop or Start a node (public.service_power_action); the server checks owner or admin, second factor, state and the hourly limit. */
export async function powerService(input: { serviceId: string; action: PowerAction }): Promise<PoweredService> {
  const supabase = await getSupabase();
  const { data, error } = await supabase.rpc('service_power_action', { p_service_id: input.serviceId, p_action: input.action });
  if (error) throw error;
  return data as PoweredService;
}

export function usePowerService() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: powerService,
    onSuccess: (powered) => {
      // The buttons follow the answer at once...
      queryClient.setQueryData(servicesKeys.of(powered.id, 'power'), { stopped_at: powered.stopped_at });
      // ...and the page reads its events (the new one) and the node's state again.
      void queryClient.invalidateQueries({ queryKey: servicesKeys.detail(powered.id) });
    },
    // Refused (its state changed meanwhile) or lost: the page shows what the server has now.
    onError: (_e, input) => void queryClient.invalidateQueries({ queryKey: servicesKeys.detail(input.serviceId) }),
  });
}
