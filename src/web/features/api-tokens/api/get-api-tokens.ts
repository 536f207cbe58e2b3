import type { ApiScope } from '@shared/api-tokens';
import { useQuery } from '@tanstack/react-query';
import { getSupabase } from '@/lib/supabase';
import { apiTokenKeys } from '@/lib/query-keys';

/** One row of public.api_tokens (migration 0055): never the secret nor its hash. */
export type ApiToken = {
  id: string;
  name: string;
  prefix: string;
  scopes: ApiScope[];
  expires_at: string | null;
  allowed_ips: string[];
  created_at: string;
  last_used_at: string | null;
  last_used_ip: string | null;
};

/** The signed-in user's tokens not revoked, newest first. */
async function getApiTokens(): Promise<ApiToken[]> {
  const supabase = await getSupabase();
  const { data, error } = await supabase.from('api_tokens').select('*').order('created_at', { ascending: false });
  if (error) throw new Error(error.message);
  return data as ApiToken[];
}

export function useApiTokens() {
  return useQuery({ queryKey: apiTokenKeys.list(), queryFn: getApiTokens, staleTime: 0 });
}
