import { useMutation, useQueryClient } from '@tanstack/react-query';
import { getSupabase } from '@/lib/supabase';
import { settingsKeys } from '@/lib/query-keys';

export async function unenrollFactor(factorId: string): Promise<void> {
  const supabase = await getSupabase();
  const { error } = await supabase.auth.mfa.unenroll({ factorId });
  if (error) throw error;
}

export function useUnenrollFactor() {
  const queryClient = useQueryClient();
  return useMutation({ mutationFn: unenrollFactor, onSuccess: () => queryClient.invalidateQueries({ queryKey: settingsKeys.factors() }) });
}
