import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';
import { getSupabase } from '@/lib/supabase';
import type { Paged } from './get-user-transactions';
import { adminKeys } from '@/lib/query-keys';

export type UserPurchase = {
  id: string;
  amount: number;
  status: 'pending' | 'completed' | 'rejected' | 'expired';
  provider: string;
  provider_order_id: string | null;
  created_at: string;
  updated_at: string;
  /** Null until the purchase completes. */
  receipt_number: string | null;
  /** Dollars refunded and booked. */
  refunded: number;
  /** Dollars an admin may still refund: less what is refunded or pending at the provider. */
  refundable: number;
  /** A refund the provider did not answer (it may have been made): asking again is safe. */
  unanswered_refund: number | null;
};

/** One page of the user's credit purchases, newest first (admin_user_purchases). */
export async function getUserPurchases(userId: string, limit: number, offset: number): Promise<Paged<UserPurchase>> {
  const supabase = await getSupabase();
  const { data, error } = await supabase.rpc('admin_user_purchases', { p_user_id: userId, p_limit: limit, p_offset: offset });
  if (error) throw error;
  const rows = data as (UserPurchase & { total_count: number })[];
  return {
    rows: rows.map((r) => ({
      ...r,
      amount: Number(r.amount),
      refunded: Number(r.refunded),
      refundable: Number(r.refundable),
      unanswered_refund: r.unanswered_refund === null ? null : Number(r.unanswered_refund),
    })),
    total: Number(rows[0]?.total_count ?? 0),
  };
}

export const userPurchasesQueryOptions = (userId: string, limit: number, offset: number) =>
  queryOptions({ queryKey: adminKeys.userPage(userId, 'purchases', limit, offset), queryFn: () => getUserPurchases(userId, limit, offset), staleTime: 0 });

export function useUserPurchases(userId: string, limit: number, offset: number) {
  return useQuery({ ...userPurchasesQueryOptions(userId, limit, offset), placeholderData: keepPreviousData });
}
