import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';
import { getSupabase } from '@/lib/supabase';
import { adminKeys } from '@/lib/query-keys';

export type UserStatsRow = {
  user_id: string;
  email: string;
  full_name: string | null;
  active_services_count: number;
  last_sign_in_at: string | null;
  created_at: string;
  total_count: number;
  /** Negative after a payment reversal: flagged in the list. */
  balance: number;
};

export type UserStatsPage = { rows: UserStatsRow[]; total: number };

/** One page of users, searched by e-mail on the server (admins only). */
export async function getUserStats(search: string, limit: number, offset: number): Promise<UserStatsPage> {
  const supabase = await getSupabase();
  const { data, error } = await supabase.rpc('get_user_stats', { p_search: search || null, p_limit: limit, p_offset: offset });
  if (error) throw error;
  const rows = data as UserStatsRow[];
  return { rows, total: rows[0]?.total_count ?? 0 };
}

export const userStatsQueryOptions = (search: string, limit: number, offset: number) =>
  queryOptions({ queryKey: adminKeys.userStatsPage(search, limit, offset), queryFn: () => getUserStats(search, limit, offset), staleTime: 0 });

export function useUserStats(search: string, limit: number, offset: number) {
  return useQuery({ ...userStatsQueryOptions(search, limit, offset), placeholderData: keepPreviousData });
}
