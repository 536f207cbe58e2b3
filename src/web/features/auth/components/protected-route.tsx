import type { ReactNode } from 'react';
import { Navigate } from 'react-router';
import { Spinner } from '@/components/ui/spinner';
import { paths } from '@/config/paths';
import { useAuth } from '@/lib/auth';
import { needsSecondFactor } from '@/lib/second-factor';

/** Spec §2: a spinner while the session loads; no user means /login, replacing history. */
export function ProtectedRoute({ children }: { children: ReactNode }) {
  const auth = useAuth();
  if (auth.status === 'loading') return <Spinner label="Loading your session..." />;
  // No user, or one who has not given their second factor yet (the login page asks for it).
  if (auth.status === 'signed-out' || needsSecondFactor(auth.session)) return <Navigate to={paths.login} replace />;
  return children;
}
