import { showAuthError } from '@/features/auth/auth-error';
import { needsSecondFactor } from '@/lib/second-factor';
import { getSupabase } from '@/lib/supabase';
import { toast } from '@/lib/toast';

/**
 * Signs in with the link e-mailed to the owner of a locked account after their right password
 * came from a new address (POST /auth/v1/verify, type email): the session starts as a password
 * sign-in's would, and a refused link says why in the auth error toast.
 */
export async function signInWithAddressLink(token: string): Promise<void> {
  try {
    const supabase = await getSupabase();
    const { data, error } = await supabase.auth.verifyOtp({ token_hash: token, type: 'email' });
    if (error) return showAuthError(error);
    // The login page now asks for the second factor; welcome comes after it.
    if (data.session && !needsSecondFactor(data.session)) toast.success('Welcome back!');
  } catch (e) {
    showAuthError(e);
  }
}
