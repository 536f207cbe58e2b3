import { useMutation } from '@tanstack/react-query';
import { getSupabase } from '@/lib/supabase';

/** The server refuses a new password without the right current one (PUT /user current_password). */
export async function updatePassword({ currentPassword, newPassword }: { currentPassword: string; newPassword: string }): Promise<void> {
  const supabase = await getSupabase();
  const { error } = await supabase.auth.updateUser({ password: newPassword, current_password: currentPassword });
  if (error) throw error;
}

export function useUpdatePassword() {
  return useMutation({ mutationFn: updatePassword });
}
