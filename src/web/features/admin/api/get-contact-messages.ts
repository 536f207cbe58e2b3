import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';
import { getSupabase } from '@/lib/supabase';
import { adminKeys } from '@/lib/query-keys';

export type ContactMessage = { id: string; created_at: string; name: string; email: string; topic: string; message: string; total_count: number };
export type ContactMessagesPage = { rows: ContactMessage[]; total: number };

/** One page of the contact form's messages, newest first (admins only, admin_contact_messages). */
export async function getContactMessages(q: { limit: number; offset: number }): Promise<ContactMessagesPage> {
  const supabase = await getSupabase();
  const { data, error } = await supabase.rpc('admin_contact_messages', { p_limit: q.limit, p_offset: q.offset });
  if (error) throw error;
  const rows = data as ContactMessage[];
  return { rows, total: Number(rows[0]?.total_count ?? 0) };
}

export const contactMessagesQueryOptions = (q: { limit: number; offset: number }) =>
  queryOptions({ queryKey: adminKeys.contactMessages(q), queryFn: () => getContactMessages(q), staleTime: 0 });

export function useContactMessages(q: { limit: number; offset: number }) {
  return useQuery({ ...contactMessagesQueryOptions(q), placeholderData: keepPreviousData });
}
