import type { RefundPurchaseInput } from '@shared/validation';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { functionError } from '@/lib/function-error';
import { getSupabase } from '@/lib/supabase';
import { adminKeys } from '@/lib/query-keys';

const FALLBACK = 'The refund could not be made. Please try again.';

/** `completed` with its credit note, or `pending` while the provider finishes it (its webhook books it). */
export type RefundOutcome = { refund_id: string; status: 'completed' | 'pending'; credit_note: string | null };

/** Refunds a purchase through its provider (refund-purchase); throws the function's own message when it refuses. */
export async function refundPurchase(input: RefundPurchaseInput): Promise<RefundOutcome> {
  const supabase = await getSupabase();
  const { data, error } = await supabase.functions.invoke<RefundOutcome>('refund-purchase', { body: input });
  if (!error) return data!;
  throw await functionError(error, FALLBACK);
}

export function useRefundPurchase(userId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: refundPurchase,
    onSettled: () =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: adminKeys.userStats() }),
        queryClient.invalidateQueries({ queryKey: adminKeys.user(userId) }),
        queryClient.invalidateQueries({ queryKey: adminKeys.audit() }),
      ]),
  });
}
