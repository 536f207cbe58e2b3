import { getSupabase } from '@/lib/supabase';

/**
 * What a completed purchase of the caller's added to their balance, or null when the purchase is
 * not theirs, not completed, or cannot be read: the Billing page says "Payment Processed" with it.
 */
export async function getPurchaseAmount(purchaseId: string): Promise<number | null> {
  const supabase = await getSupabase();
  const { data, error } = await supabase.from('credit_purchases').select('amount, status').eq('id', purchaseId).maybeSingle();
  const row = data as { amount: number | string; status: string } | null;
  if (error || row?.status !== 'completed') return null;
  return Number(row.amount);
}
