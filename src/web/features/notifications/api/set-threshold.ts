import { useMutation, useQueryClient } from '@tanstack/react-query';
import { getSupabase } from '@/lib/supabase';
import { notificationsKeys } from '@/lib/query-keys';

/** Sets the low-balance threshold in USD, or turns the notice off with null (set_low_balance_threshold). */
async function setThreshold(amount: number | null): Promise<void> {
  const supabase = await getSupabase();
  const { error } = await supabase.rpc('set_low_balance_threshold', { p_amount: amount });
  if (error) throw error;
}

export function useSetThreshold(userId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: setThreshold,
    onSuccess: (_, amount) => queryClient.setQueryData(notificationsKeys.threshold(userId), amount),
  });
}
