import type { StatementMonth } from '@shared/statements';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { getSupabase } from '@/lib/supabase';
import { billingKeys } from '@/lib/query-keys';

/** The months with a statement, newest first, with their opening and closing balances. */
export async function getStatementMonths(): Promise<StatementMonth[]> {
  const supabase = await getSupabase();
  const { data, error } = await supabase.rpc('get_statement_months');
  if (error) throw error;
  return (data as StatementMonth[]).map((m) => ({ ...m, opening: Number(m.opening), closing: Number(m.closing), lines: Number(m.lines) }));
}

export const statementMonthsQueryOptions = (userId: string) => queryOptions({ queryKey: billingKeys.statements(userId), queryFn: getStatementMonths });

export function useStatementMonths(userId: string) {
  return useQuery(statementMonthsQueryOptions(userId));
}
