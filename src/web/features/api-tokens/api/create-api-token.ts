import type { CreateApiToken } from '@shared/api-tokens';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { functionError } from '@/lib/function-error';
import { getSupabase } from '@/lib/supabase';
import { apiTokenKeys } from '@/lib/query-keys';

const FALLBACK = 'The token could not be created. Please try again.';

/** Makes a token (the api-token function): its secret comes back this once. */
async function createApiToken(input: CreateApiToken): Promise<{ id: string; token: string }> {
  const supabase = await getSupabase();
  const { data, error } = await supabase.functions.invoke<{ id: string; token: string }>('api-token', { body: input });
  if (!error) return data!;
  throw await functionError(error, FALLBACK);
}

export function useCreateApiToken() {
  const queryClient = useQueryClient();
  return useMutation({ mutationFn: createApiToken, onSuccess: () => queryClient.invalidateQueries({ queryKey: apiTokenKeys.list() }) });
}
