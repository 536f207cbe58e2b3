import type { ServiceState } from '@shared/constants';
import type { FleetState } from '@shared/node-health';
import { queryOptions, useQuery } from '@tanstack/react-query';
import { getSupabase } from '@/lib/supabase';
import { adminKeys } from '@/lib/query-keys';

/** A live service of the user as the fleet sees it; node_state is null when it has no node to watch. */
export type AdminUserService = {
  id: string;
  name: string;
  product: string | null;
  created_at: string;
  renews_at: string | null;
  service_state: ServiceState;
  node_state: FleetState | null;
  host: string | null;
  last_seen_at: string | null;
  reason: string | null;
  provisioning_error: string | null;
  restarts_24h: number;
  /** USD a month, as the fleet's (FleetRow.monthly_margin). */
  monthly_margin: number | null;
  /** As the fleet's (FleetRow.install_refunded). */
  install_refunded?: boolean;
};

/** One user as the admin's page shows them (admin_user). */
export type AdminUser = {
  id: string;
  email: string;
  full_name: string | null;
  created_at: string;
  last_sign_in_at: string | null;
  email_confirmed_at: string | null;
  is_admin: boolean;
  has_dev_access: boolean;
  suspended: boolean;
  /** While suspended: the end, or null for "until reactivated". */
  suspended_until: string | null;
  second_factor: boolean;
  balance: number;
  services: AdminUserService[];
  counts: { transactions: number; purchases: number; events: number };
};

/** The user, or null when there is no such live account (the server's answer then). */
export async function getAdminUser(userId: string): Promise<AdminUser | null> {
  const supabase = await getSupabase();
  const { data, error } = await supabase.rpc('admin_user', { p_user_id: userId });
  if (error) throw error;
  return (data as AdminUser | null) ?? null;
}

/** Everything under this key is the one user's page: an action reloads it all. */
/** While the worker moves one of the user's services (installing, deleting), the page reads it again this often. */
const BUSY_POLL_MS = 3000;

export const adminUserQueryOptions = (userId: string) =>
  queryOptions({
    queryKey: adminKeys.userProfile(userId),
    queryFn: () => getAdminUser(userId),
    staleTime: 0,
    refetchInterval: (query) =>
      query.state.data?.services.some((s) => s.service_state === 'installing' || s.service_state === 'deleting') ? BUSY_POLL_MS : false,
  });

export function useAdminUser(userId: string) {
  return useQuery(adminUserQueryOptions(userId));
}
