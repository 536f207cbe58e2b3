import { useMutation, useQueryClient } from '@tanstack/react-query';
import { getSupabase } from '@/lib/supabase';
import { settingsKeys } from '@/lib/query-keys';

/** Signs one other device out: its session ends on the server, with its refresh tokens. */
async function endSession(sessionId: string): Promise<void> {
  const supabase = await getSupabase();
  const { error } = await supabase.rpc('end_own_session', { p_session_id: sessionId });
  if (error) throw new Error(error.message);
}

/** Signs every device out but this one. */
async function endOtherSessions(): Promise<void> {
  const supabase = await getSupabase();
  const { error } = await supabase.auth.signOut({ scope: 'others' });
  if (error) throw error;
}

export function useEndSession() {
  const queryClient = useQueryClient();
  return useMutation({ mutationFn: endSession, onSettled: () => queryClient.invalidateQueries({ queryKey: settingsKeys.sessions() }) });
}

export function useEndOtherSessions() {
  const queryClient = useQueryClient();
  return useMutation({ mutationFn: endOtherSessions, onSettled: () => queryClient.invalidateQueries({ queryKey: settingsKeys.sessions() }) });
}
