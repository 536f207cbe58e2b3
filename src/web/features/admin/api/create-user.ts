import type { AdminCreateUserInput } from '@shared/validation';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { functionError } from '@/lib/function-error';
import { getSupabase } from '@/lib/supabase';
import { adminKeys } from '@/lib/query-keys';

const FALLBACK = 'The user could not be created. Please try again.';

/**
 * Creates a confirmed user (admin-create-user). Throws an Error carrying the function's own
 * message ({ error }), such as a taken address, when it refuses.
 */
export async function createUser(input: AdminCreateUserInput): Promise<{ id: string; email: string }> {
  const supabase = await getSupabase();
  const { data, error } = await supabase.functions.invoke<{ id: string; email: string }>('admin-create-user', { body: input });
  if (!error) return data!;
  throw await functionError(error, FALLBACK);
}

export function useCreateUser() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: createUser,
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: adminKeys.userStats() });
      void queryClient.invalidateQueries({ queryKey: adminKeys.audit() });
    },
  });
}
