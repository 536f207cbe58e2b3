import { TRANSACTIONS_LOADED } from '@shared/constants';
import type { TransactionType } from '@shared/ledger';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { getSupabase } from '@/lib/supabase';
import { billingKeys } from '@/lib/query-keys';

export type Transaction = {
  id: string;
  type: TransactionType;
  description: string;
  amount: number;
  created_at: string;
  service_id: string | null;
};

export async function getTransactions(userId: string): Promise<Transaction[]> {
  const supabase = await getSupabase();
  const { data, error } = await supabase
    .from('credit_transactions')
    .select('id, type, description, amount, created_at, service_id')
    .eq('user_id', userId)
    .order('created_at', { ascending: false })
    .limit(TRANSACTIONS_LOADED);
  if (error) throw error;
  return (data as Transaction[]).map((t) => ({ ...t, amount: Number(t.amount) }));
}

export const transactionsQueryOptions = (userId: string) =>
  queryOptions({ queryKey: billingKeys.transactions(userId), queryFn: () => getTransactions(userId) });

export function useTransactions(userId: string) {
  return useQuery(transactionsQueryOptions(userId));
}
