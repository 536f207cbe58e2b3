import type { ServiceEventDetail } from '@shared/service-events';
import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';
import { getSupabase } from '@/lib/supabase';
import type { Paged } from './get-user-transactions';
import { adminKeys } from '@/lib/query-keys';

export type UserServiceEvent = { id: number; service_id: string; service_name: string; event: string; detail: ServiceEventDetail | null; created_at: string };

/** One page of the events of all the user's services, newest first (admin_user_events). */
export async function getUserEvents(userId: string, limit: number, offset: number): Promise<Paged<UserServiceEvent>> {
  const supabase = await getSupabase();
  const { data, error } = await supabase.rpc('admin_user_events', { p_user_id: userId, p_limit: limit, p_offset: offset });
  if (error) throw error;
  const rows = data as (UserServiceEvent & { total_count: number })[];
  return { rows, total: Number(rows[0]?.total_count ?? 0) };
}

export const userEventsQueryOptions = (userId: string, limit: number, offset: number) =>
  queryOptions({ queryKey: adminKeys.userPage(userId, 'events', limit, offset), queryFn: () => getUserEvents(userId, limit, offset), staleTime: 0 });

export function useUserEvents(userId: string, limit: number, offset: number) {
  return useQuery({ ...userEventsQueryOptions(userId, limit, offset), placeholderData: keepPreviousData });
}
