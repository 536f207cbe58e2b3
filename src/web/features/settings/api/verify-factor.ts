import { useMutation, useQueryClient } from '@tanstack/react-query';
import { getSupabase } from '@/lib/supabase';
import { settingsKeys } from '@/lib/query-keys';

/** Checks a code of the factor; a right one verifies the factor and raises the session to aal2. */
export async function verifyFactor(input: { factorId: string; code: string }): Promise<void> {
  const supabase = await getSupabase();
  const { error } = await supabase.auth.mfa.challengeAndVerify(input);
  if (error) throw error;
}

export function useVerifyFactor() {
  const queryClient = useQueryClient();
  // The raise to aal2 ends the user's other aal1 sessions.
  return useMutation({
    mutationFn: verifyFactor,
    onSuccess: () =>
      Promise.all([queryClient.invalidateQueries({ queryKey: settingsKeys.factors() }), queryClient.invalidateQueries({ queryKey: settingsKeys.sessions() })]),
  });
}
