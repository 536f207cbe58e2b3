import { useMutation, useQueryClient } from '@tanstack/react-query';
import { getSupabase } from '@/lib/supabase';
import { adminKeys } from '@/lib/query-keys';

/**
 * Adds credit to a user's balance with a note the user sees in Billing. The idempotency key is
 * made once per dialog, so a retried click adds the credit once. Resolves with the new balance.
 */
export async function addCredit(input: { userId: string; amount: number; note: string; idempotencyKey: string }): Promise<number> {
  const supabase = await getSupabase();
  const { data, error } = await supabase.rpc('admin_add_credit', {
    p_user_id: input.userId,
    p_amount: input.amount,
    p_note: input.note,
    p_idempotency_key: input.idempotencyKey,
  });
  if (error) throw error;
  return Number(data);
}

export function useAddCredit() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: addCredit,
    onSuccess: (_balance, input) =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: adminKeys.userStats() }),
        // The user's own page, when the credit was added there: its balance and ledger.
        queryClient.invalidateQueries({ queryKey: adminKeys.user(input.userId) }),
      ]),
  });
}
