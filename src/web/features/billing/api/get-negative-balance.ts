import { queryOptions, useQuery } from '@tanstack/react-query';
import { getSupabase } from '@/lib/supabase';
import { billingKeys } from '@/lib/query-keys';

/**
 * The caller's balance while a refund or reversal has taken it below zero, and why: the ledger row
 * that took the credit back, its credit note, and the admin's reason when they gave one for the
 * customer (public.get_negative_balance). Null while the balance is not negative.
 */
export type NegativeBalance = {
  balance: number;
  /** The ledger's words ("Refund (receipt NH-2026-000001)"); null when no refund explains it. */
  description: string | null;
  amount: number | null;
  created_at: string | null;
  note: string | null;
  credit_note: string | null;
};

type Row = Omit<NegativeBalance, 'balance' | 'amount'> & { balance: number | string; amount: number | string | null };

export async function getNegativeBalance(): Promise<NegativeBalance | null> {
  const supabase = await getSupabase();
  const { data, error } = await supabase.rpc('get_negative_balance');
  if (error) throw error;
  const row = (data as Row[])[0];
  return row ? { ...row, balance: Number(row.balance), amount: row.amount === null ? null : Number(row.amount) } : null;
}

export const negativeBalanceQueryOptions = (userId: string) => queryOptions({ queryKey: billingKeys.negativeBalance(userId), queryFn: getNegativeBalance });

/** Asked only while `negative`: a balance at or above zero has nothing to explain. */
export function useNegativeBalance(userId: string, negative: boolean) {
  return useQuery({ ...negativeBalanceQueryOptions(userId), enabled: negative });
}
