import { queryOptions, useQuery } from '@tanstack/react-query';
import { getSupabase } from '@/lib/supabase';
import { accountKeys } from '@/lib/query-keys';

export type Profile = {
  id: string;
  full_name: string | null;
  email: string | null;
  company: string | null;
  company_vat: string | null;
  darkmode_enabled: boolean;
  language: string;
  time_zone: string;
  created_at: string;
  updated_at: string;
};

export async function getProfile(userId: string): Promise<Profile> {
  const supabase = await getSupabase();
  const { data, error } = await supabase.from('profiles').select('*').eq('id', userId).single();
  if (error) throw error;
  return data as Profile;
}

export const profileQueryOptions = (userId: string) => queryOptions({ queryKey: accountKeys.profile(userId), queryFn: () => getProfile(userId) });

export function useProfile(userId: string) {
  return useQuery(profileQueryOptions(userId));
}
