import { PURCHASES_LOADED } from '@shared/constants';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { getSupabase } from '@/lib/supabase';
import { billingKeys } from '@/lib/query-keys';

export type Purchase = {
  id: string;
  amount: number;
  status: 'pending' | 'completed' | 'rejected' | 'expired';
  /** 'paypal', or 'test' for the built-in test provider, whose payments take no money. */
  provider: string;
  created_at: string;
  /** What a crypto invoice credited, when it settled by what arrived (decision 050). */
  credited: number | null;
  /** Why it credited other than the order, or came late. */
  note: string | null;
};

export async function getPurchases(userId: string): Promise<Purchase[]> {
  const supabase = await getSupabase();
  const { data, error } = await supabase
    .from('credit_purchases')
    .select('id, amount, status, provider, created_at, credited, note')
    .eq('user_id', userId)
    .order('created_at', { ascending: false })
    .limit(PURCHASES_LOADED);
  if (error) throw error;
  return (data as Purchase[]).map((p) => ({ ...p, amount: Number(p.amount), credited: p.credited === null ? null : Number(p.credited) }));
}

export const purchasesQueryOptions = (userId: string) => queryOptions({ queryKey: billingKeys.purchases(userId), queryFn: () => getPurchases(userId) });

export function usePurchases(userId: string) {
  return useQuery(purchasesQueryOptions(userId));
}
