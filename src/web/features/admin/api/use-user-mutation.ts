import { useMutation, useQueryClient } from '@tanstack/react-query';
import { getSupabase } from '@/lib/supabase';
import { adminKeys } from '@/lib/query-keys';

/** Calls an admin RPC that answers nothing but may refuse. */
export async function callAdminRpc(fn: string, args: Record<string, unknown>): Promise<void> {
  const supabase = await getSupabase();
  const { error } = await supabase.rpc(fn, args);
  if (error) throw error;
}

/** A change to one user: their page, the user list and the fleet read again after it, done or refused. */
export function useUserMutation<I extends { userId: string }>(action: (input: I) => Promise<void>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: action,
    onSettled: (_data, _error, input) =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: adminKeys.user(input.userId) }),
        queryClient.invalidateQueries({ queryKey: adminKeys.userStats() }),
        queryClient.invalidateQueries({ queryKey: adminKeys.fleet() }),
      ]),
  });
}
