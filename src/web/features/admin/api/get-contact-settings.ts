import type { ContactSettings } from '@shared/contact-settings';
import { useQuery } from '@tanstack/react-query';
import { getSupabase } from '@/lib/supabase';
import { adminKeys } from '@/lib/query-keys';

export async function getContactSettings(): Promise<ContactSettings> {
  const supabase = await getSupabase();
  const { data, error } = await supabase.functions.invoke('contact-settings');
  if (error) throw error;
  return data as ContactSettings;
}

export function useContactSettings() {
  return useQuery({ queryKey: adminKeys.contactSettings(), queryFn: getContactSettings });
}
