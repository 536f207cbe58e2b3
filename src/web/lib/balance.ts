import { queryOptions, useQuery } from '@tanstack/react-query';
import { getSupabase } from '@/lib/supabase';
import { billingKeys } from '@/lib/query-keys';

export async function getBalance(userId: string): Promise<number> {
  const supabase = await getSupabase();
  const { data, error } = await supabase.from('user_credits').select('balance').eq('user_id', userId).single();
  if (error) throw error;
  return Number((data as { balance: number | string }).balance);
}

export const balanceQueryOptions = (userId: string) => queryOptions({ queryKey: billingKeys.balance(userId), queryFn: () => getBalance(userId) });

export function useBalance(userId: string) {
  return useQuery(balanceQueryOptions(userId));
}
