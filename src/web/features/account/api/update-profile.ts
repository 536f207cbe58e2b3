import { useMutation, useQueryClient } from '@tanstack/react-query';
import { getSupabase } from '@/lib/supabase';
import type { Profile } from './get-profile';
import { accountKeys } from '@/lib/query-keys';

export type ProfileUpdate = Partial<Pick<Profile, 'full_name' | 'company' | 'company_vat' | 'language' | 'time_zone'>>;

export async function updateProfile(userId: string, changes: ProfileUpdate): Promise<Profile> {
  const supabase = await getSupabase();
  const { data, error } = await supabase
    .from('profiles')
    .update({ ...changes, updated_at: new Date().toISOString() })
    .eq('id', userId)
    .select('*')
    .single();
  if (error) throw error;
  return data as Profile;
}

export function useUpdateProfile(userId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (changes: ProfileUpdate) => updateProfile(userId, changes),
    onSuccess: (profile) => queryClient.setQueryData(accountKeys.profile(userId), profile),
  });
}
