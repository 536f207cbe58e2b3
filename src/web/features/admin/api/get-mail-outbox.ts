import type { OutboxStatus } from '@shared/mail-outbox';
import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';
import { getSupabase } from '@/lib/supabase';
import { adminKeys } from '@/lib/query-keys';

export type OutboxMail = {
  id: number;
  created_at: string;
  to_address: string;
  subject: string;
  status: OutboxStatus;
  error: string | null;
  sent_at: string | null;
  attempts: number;
  /** The files the mail carries (a receipt's PDF), or null. */
  attachment_names: string[] | null;
  total_count: number;
};
export type OutboxQuery = { to: string | null; limit: number; offset: number };
export type OutboxPage = { rows: OutboxMail[]; total: number };

/** One page of the mail outbox without bodies, newest first (admins only, admin_mail_outbox). */
export async function getMailOutbox(q: OutboxQuery): Promise<OutboxPage> {
  const supabase = await getSupabase();
  const { data, error } = await supabase.rpc('admin_mail_outbox', { p_to: q.to, p_limit: q.limit, p_offset: q.offset });
  if (error) throw error;
  const rows = data as OutboxMail[];
  return { rows, total: Number(rows[0]?.total_count ?? 0) };
}

export const mailOutboxQueryOptions = (q: OutboxQuery) => queryOptions({ queryKey: adminKeys.outbox(q), queryFn: () => getMailOutbox(q), staleTime: 0 });

export function useMailOutbox(q: OutboxQuery) {
  return useQuery({ ...mailOutboxQueryOptions(q), placeholderData: keepPreviousData });
}
