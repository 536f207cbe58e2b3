import { useQuery } from '@tanstack/react-query';
import { getSupabase } from '@/lib/supabase';
import { notificationsKeys } from '@/lib/query-keys';

/** The balance (USD) under which a low-balance notice goes out; null when none does. */
async function getThreshold(userId: string): Promise<number | null> {
  const supabase = await getSupabase();
  const { data, error } = await supabase.from('profiles').select('low_balance_threshold').eq('id', userId).single();
  if (error) throw error;
  const value = (data as { low_balance_threshold: number | string | null }).low_balance_threshold;
  // numeric arrives as a string or a number, as the driver gives it.
  return value === null ? null : Number(value);
}

export function useThreshold(userId: string) {
  return useQuery({ queryKey: notificationsKeys.threshold(userId), queryFn: () => getThreshold(userId) });
}
