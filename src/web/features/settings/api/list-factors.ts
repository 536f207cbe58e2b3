import { queryOptions, useQuery } from '@tanstack/react-query';
import { getSupabase } from '@/lib/supabase';
import { settingsKeys } from '@/lib/query-keys';

export type TotpFactor = { id: string; friendly_name?: string; status: string; created_at: string };

/** The user's verified TOTP factors. */
export async function listFactors(): Promise<TotpFactor[]> {
  const supabase = await getSupabase();
  const { data, error } = await supabase.auth.mfa.listFactors();
  if (error) throw error;
  return data.totp as TotpFactor[];
}

export const factorsQueryOptions = () => queryOptions({ queryKey: settingsKeys.factors(), queryFn: listFactors, staleTime: 0 });

export function useFactors() {
  return useQuery(factorsQueryOptions());
}
