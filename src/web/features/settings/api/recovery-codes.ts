import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { authRequest } from '@/lib/auth-request';
import { settingsKeys } from '@/lib/query-keys';

/** How many unused recovery codes the user has left. */
async function countRecoveryCodes(): Promise<number> {
  return (await authRequest<{ remaining: number }>('/factors/recovery-codes')).remaining;
}

/** Ten new codes, replacing all earlier ones; the server keeps only their hashes, so this is the one time they are seen. */
export async function regenerateRecoveryCodes(): Promise<string[]> {
  return (await authRequest<{ codes: string[] }>('/factors/recovery-codes', {})).codes;
}

export function useRecoveryCodeCount(enabled: boolean) {
  return useQuery({ queryKey: settingsKeys.recoveryCodes(), queryFn: countRecoveryCodes, staleTime: 0, enabled });
}

export function useRegenerateRecoveryCodes() {
  const queryClient = useQueryClient();
  return useMutation({ mutationFn: regenerateRecoveryCodes, onSuccess: () => queryClient.invalidateQueries({ queryKey: settingsKeys.recoveryCodes() }) });
}
