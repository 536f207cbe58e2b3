import { getSupabase } from '@/lib/supabase';
import { toast } from '@/lib/toast';

/**
 * Signs out of every session (spec §7 scope=global). A session the server no longer knows
 * (401, 403, 404) is as good as signed out; other failures keep the user in and say so.
 */
export async function signOut(): Promise<boolean> {
  try {
    const supabase = await getSupabase();
    const { error } = await supabase.auth.signOut({ scope: 'global' });
    if (error && ![401, 403, 404].includes(error.status ?? 0)) {
      toast.error('Error signing out', error.message);
      return false;
    }
    return true;
  } catch (e) {
    toast.error('Error signing out', e instanceof Error ? e.message : undefined);
    return false;
  }
}
