import type { Session } from '@supabase/supabase-js';
import { useAuth } from '@/lib/auth';

/** What the signed-in screens need to know about their user. */
export type SignedInUser = { id: string; email: string; fullName: string | null; createdAt: string };

export function toSignedInUser(session: Session): SignedInUser {
  const meta = session.user.user_metadata as { full_name?: unknown } | undefined;
  return {
    id: session.user.id,
    email: session.user.email ?? '',
    fullName: typeof meta?.full_name === 'string' ? meta.full_name : null,
    createdAt: session.user.created_at,
  };
}

/** The signed-in user; only for screens inside ProtectedRoute, which renders them only when signed in. */
export function useSignedInUser(): SignedInUser {
  const auth = useAuth();
  if (auth.status !== 'signed-in') throw new Error('useSignedInUser outside a protected route');
  return toSignedInUser(auth.session);
}
