import type { TransactionType } from '@shared/ledger';
import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';
import { getSupabase } from '@/lib/supabase';
import { adminKeys } from '@/lib/query-keys';

export type UserTransaction = {
  id: string;
  type: TransactionType;
  description: string;
  amount: number;
  service_id: string | null;
  service_name: string | null;
  created_at: string;
};

export type Paged<T> = { rows: T[]; total: number };

/** One page of the user's whole ledger, newest first (admin_user_transactions). */
export async function getUserTransactions(userId: string, limit: number, offset: number): Promise<Paged<UserTransaction>> {
  const supabase = await getSupabase();
  const { data, error } = await supabase.rpc('admin_user_transactions', { p_user_id: userId, p_limit: limit, p_offset: offset });
  if (error) throw error;
  const rows = data as (UserTransaction & { total_count: number })[];
  // numeric arrives as a string or a number depending on the path: the page counts in numbers.
  return { rows: rows.map((r) => ({ ...r, amount: Number(r.amount) })), total: Number(rows[0]?.total_count ?? 0) };
}

export const userTransactionsQueryOptions = (userId: string, limit: number, offset: number) =>
  queryOptions({
    queryKey: adminKeys.userPage(userId, 'transactions', limit, offset),
    queryFn: () => getUserTransactions(userId, limit, offset),
    staleTime: 0,
  });

export function useUserTransactions(userId: string, limit: number, offset: number) {
  return useQuery({ ...userTransactionsQueryOptions(userId, limit, offset), placeholderData: keepPreviousData });
}
