import { lazy, Suspense } from 'react';
import { Link, Navigate } from 'react-router';
import { Spinner } from '@/components/ui/spinner';
import { paths } from '@/config/paths';
import { useAuth } from '@/lib/auth';
import { AuthCard } from '@/features/auth/components/auth-card';
import { deferUntilInteraction } from '@/lib/deferred-hydration';
import { needsSecondFactor } from '@/features/auth/mfa';
import { Seo } from '@/lib/seo';
import { getSupabase } from '@/lib/supabase';

// The form's code (react-hook-form, the zod rules) loads on the first interaction, and with it
// the auth client, so that it is ready by the time the visitor submits.
const LoginForm = deferUntilInteraction(() => {
  void getSupabase().catch(() => undefined);
  return import('@/features/auth/components/login-form').then((m) => m.LoginForm);
});
// Shown only to a session that owes its second factor, never prerendered.
const MfaChallengeForm = lazy(() => import('@/features/auth/components/mfa-challenge-form').then((m) => ({ default: m.MfaChallengeForm })));

export default function LoginPage() {
  const auth = useAuth();
  // A session that still owes its second factor finishes signing in here.
  const secondStep = auth.status === 'signed-in' && needsSecondFactor(auth.session);
  if (auth.status === 'signed-in' && !secondStep) return <Navigate to={paths.dashboard} replace />;
  return (
    <>
      <Seo title="Sign In" description="Sign in to your NodeHarbor dashboard to manage your hosted nodes, credit and account." path={paths.login} />
      <AuthCard title="Sign in" description="Welcome back. Sign in to manage your nodes.">
        <Suspense fallback={<Spinner label="Loading..." />}>{secondStep ? <MfaChallengeForm /> : <LoginForm />}</Suspense>
        <div className="mt-6 flex flex-col gap-2 text-center text-sm">
          <Link to={paths.resetPassword} className="text-primary underline underline-offset-4">
            Forgot your password?
          </Link>
          <p className="text-muted-foreground">
            No account yet?{' '}
            <Link to={paths.register} className="text-primary underline underline-offset-4">
              Register
            </Link>
          </p>
        </div>
      </AuthCard>
    </>
  );
}
