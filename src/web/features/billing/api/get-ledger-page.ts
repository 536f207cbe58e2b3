import type { TransactionType } from '@shared/ledger';
import type { SupabaseClient } from '@supabase/supabase-js';
import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';
import { getSupabase } from '@/lib/supabase';
import type { Transaction } from './get-transactions';
import { billingKeys } from '@/lib/query-keys';

/** The ledger's filters as the table takes them: from and to are instants (ISO), from included, to excluded. */
export type LedgerQuery = { type: TransactionType | null; from: string | null; to: string | null };
export type LedgerPage = { rows: Transaction[]; total: number };

const COLUMNS = 'id, type, description, amount, created_at, service_id';
/** PostgREST's answer to an offset beyond the rows counted (416). */
const PAST_THE_END = 'PGRST103';

/** The user's rows of credit_transactions that `q` selects: RLS lets the owner read only their own. */
export function selectLedger(supabase: SupabaseClient, userId: string, q: LedgerQuery, options?: { count: 'exact'; head?: boolean }) {
  let query = supabase.from('credit_transactions').select(COLUMNS, options).eq('user_id', userId);
  if (q.type) query = query.eq('type', q.type);
  if (q.from) query = query.gte('created_at', q.from);
  if (q.to) query = query.lt('created_at', q.to);
  return query;
}

/** numeric arrives as text: the page counts in numbers. */
export const toTransaction = (row: Transaction): Transaction => ({ ...row, amount: Number(row.amount) });

/** One page of the user's ledger, newest first (id breaks a tie, so pages never share or skip a row), and how many rows match. */
export async function getLedgerPage(userId: string, q: LedgerQuery, limit: number, offset: number): Promise<LedgerPage> {
  const supabase = await getSupabase();
  const { data, error, count } = await selectLedger(supabase, userId, q, { count: 'exact' })
    .order('created_at', { ascending: false })
    .order('id', { ascending: false })
    .range(offset, offset + limit - 1);
  if (error?.code === PAST_THE_END) {
    // A page past the last (an old link): no rows, and the count asked for alone, so the page can go to the last.
    const counted = await selectLedger(supabase, userId, q, { count: 'exact', head: true });
    if (counted.error) throw counted.error;
    return { rows: [], total: counted.count ?? 0 };
  }
  if (error) throw error;
  return { rows: (data as Transaction[]).map(toTransaction), total: count ?? 0 };
}

export const ledgerPageQueryOptions = (userId: string, q: LedgerQuery, limit: number, offset: number) =>
  queryOptions({ queryKey: billingKeys.ledgerPage(userId, q, limit, offset), queryFn: () => getLedgerPage(userId, q, limit, offset), staleTime: 0 });

export function useLedgerPage(userId: string, q: LedgerQuery, limit: number, offset: number, enabled: boolean) {
  return useQuery({ ...ledgerPageQueryOptions(userId, q, limit, offset), placeholderData: keepPreviousData, enabled });
}
