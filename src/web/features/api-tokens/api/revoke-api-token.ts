import { useMutation, useQueryClient } from '@tanstack/react-query';
import { getSupabase } from '@/lib/supabase';
import { apiTokenKeys } from '@/lib/query-keys';

/** Revokes a token at once: the next request made with it is refused. */
async function revokeApiToken(id: string): Promise<void> {
  const supabase = await getSupabase();
  const { error } = await supabase.rpc('revoke_api_token', { p_id: id });
  if (error) throw new Error(error.message);
}

export function useRevokeApiToken() {
  const queryClient = useQueryClient();
  return useMutation({ mutationFn: revokeApiToken, onSettled: () => queryClient.invalidateQueries({ queryKey: apiTokenKeys.list() }) });
}
