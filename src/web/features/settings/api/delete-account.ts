import { useMutation } from '@tanstack/react-query';
import { getSupabase } from '@/lib/supabase';

/** Deletes the signed-in account (delete_own_account). The server ends all its sessions with it. */
export async function deleteAccount(email: string): Promise<void> {
  const supabase = await getSupabase();
  const { error } = await supabase.rpc('delete_own_account', { p_email: email });
  if (error) throw new Error(error.message);
}

/** After the account is gone, only this browser's copy of the session is left to forget. */
export async function forgetDeletedSession(): Promise<void> {
  const supabase = await getSupabase();
  await supabase.auth.signOut({ scope: 'local' });
}

export function useDeleteAccount() {
  return useMutation({ mutationFn: deleteAccount });
}
