import { useMutation } from '@tanstack/react-query';
import { getSupabase } from '@/lib/supabase';

/** Starts a payment with the provider, or a crypto invoice; the browser then goes to approval_url (spec §7). */
export async function purchaseCredits(input: {
  amount: number;
  userId: string;
  /** The crypto processor's invoice instead of the card and PayPal provider (decision 050). */
  crypto?: boolean;
}): Promise<{ approval_url: string; purchase_id: string }> {
  const supabase = await getSupabase();
  const { data, error } = await supabase.functions.invoke('purchase-credits', {
    body: { amount: input.amount, credits_amount: input.amount, user_id: input.userId, ...(input.crypto ? { method: 'crypto' } : {}) },
  });
  if (error) throw error;
  const answer = data as { approval_url?: unknown; purchase_id?: unknown } | null;
  if (typeof answer?.approval_url !== 'string') throw new Error('No approval link in the answer');
  return answer as { approval_url: string; purchase_id: string };
}

export function usePurchaseCredits() {
  return useMutation({ mutationFn: purchaseCredits });
}
