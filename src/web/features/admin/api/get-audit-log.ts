import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';
import { getSupabase } from '@/lib/supabase';
import { adminKeys } from '@/lib/query-keys';

export type AuditEntry = {
  id: number;
  created_at: string;
  actor_id: string | null;
  actor: string;
  action: string;
  target_type: string;
  target_id: string | null;
  target_label: string | null;
  before: unknown;
  after: unknown;
  address: string | null;
  user_agent: string | null;
  total_count: number;
};

/** The filters as admin_audit_log takes them; from and to are instants (ISO), to exclusive. */
export type AuditQuery = {
  action: string | null;
  actor: string | null;
  target: string | null;
  from: string | null;
  to: string | null;
  limit: number;
  offset: number;
};
export type AuditPage = { rows: AuditEntry[]; total: number };

/** One page of the audit log, newest first (admins only, admin_audit_log). */
export async function getAuditLog(q: AuditQuery): Promise<AuditPage> {
  const supabase = await getSupabase();
  const { data, error } = await supabase.rpc('admin_audit_log', {
    p_action: q.action,
    p_actor: q.actor,
    p_target: q.target,
    p_from: q.from,
    p_to: q.to,
    p_limit: q.limit,
    p_offset: q.offset,
  });
  if (error) throw error;
  const rows = data as AuditEntry[];
  return { rows, total: Number(rows[0]?.total_count ?? 0) };
}

export const auditLogQueryOptions = (q: AuditQuery) => queryOptions({ queryKey: adminKeys.auditPage(q), queryFn: () => getAuditLog(q), staleTime: 0 });

export function useAuditLog(q: AuditQuery) {
  return useQuery({ ...auditLogQueryOptions(q), placeholderData: keepPreviousData });
}
