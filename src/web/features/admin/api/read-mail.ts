import { useQuery, useQueryClient } from '@tanstack/react-query';
import { getSupabase } from '@/lib/supabase';
import { adminKeys } from '@/lib/query-keys';

export type MailBody = { id: number; created_at: string; to_address: string; subject: string; status: string; text_body: string };

/** One mail's text (admins only, admin_read_mail): each call is recorded in the audit log as mail.read. */
export async function readMail(id: number): Promise<MailBody> {
  const supabase = await getSupabase();
  const { data, error } = await supabase.rpc('admin_read_mail', { p_id: id });
  if (error) throw error;
  return (data as MailBody[])[0]!;
}

/**
 * Read once per opening of the mail and never again in the background (no retry, no refetch):
 * every read is an audit entry, so one look must make one. The audit log is read again after it.
 */
export function useMailBody(id: number) {
  const queryClient = useQueryClient();
  return useQuery({
    queryKey: adminKeys.mailBody(id),
    queryFn: async () => {
      const mail = await readMail(id);
      void queryClient.invalidateQueries({ queryKey: adminKeys.audit() });
      return mail;
    },
    retry: false,
    staleTime: Infinity,
    gcTime: 0,
    refetchOnWindowFocus: false,
    refetchOnReconnect: false,
  });
}
