import { authRequest } from '@/lib/auth-request';
import { getSupabase } from '@/lib/supabase';

/**
 * The second sign-in step with a recovery code instead of the authenticator app, and the fresh
 * code that removing two-factor sign-in asks for. supabase-js has no call for it: the server
 * answers a session raised to aal2, which the client then adopts.
 */
export async function signInWithRecoveryCode(code: string): Promise<void> {
  const session = await authRequest<{ access_token: string; refresh_token: string }>('/factors/recovery', { code });
  const supabase = await getSupabase();
  const { error } = await supabase.auth.setSession({ access_token: session.access_token, refresh_token: session.refresh_token });
  if (error) throw error;
}
