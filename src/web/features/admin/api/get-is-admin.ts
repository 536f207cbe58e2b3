import { queryOptions, useQuery } from '@tanstack/react-query';
import { getSupabase } from '@/lib/supabase';
import { adminKeys } from '@/lib/query-keys';

/** Admin status comes from the server (spec §6), never from anything the browser holds. */
export async function getIsAdmin(userId: string): Promise<boolean> {
  const supabase = await getSupabase();
  const { data, error } = await supabase.rpc('is_user_admin', { user_uuid: userId });
  if (error) throw error;
  return data === true;
}

export const isAdminQueryOptions = (userId: string) => queryOptions({ queryKey: adminKeys.isAdmin(userId), queryFn: () => getIsAdmin(userId), retry: false });

export function useIsAdmin(userId: string | undefined) {
  return useQuery({ ...isAdminQueryOptions(userId ?? ''), enabled: !!userId });
}
