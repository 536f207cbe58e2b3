import { useEffect } from 'react';
import { Link, Navigate } from 'react-router';
import { paths } from '@/config/paths';
import { useAuth } from '@/features/auth/auth-provider';
import { AuthCard } from '@/features/auth/components/auth-card';
import { LoginForm } from '@/features/auth/components/login-form';
import { MfaChallengeForm } from '@/features/auth/components/mfa-challenge-form';
import { needsSecondFactor } from '@/features/auth/mfa';
import { Seo } from '@/lib/seo';
import { getSupabase } from '@/lib/supabase';

export default function LoginPage() {
  const auth = useAuth();
  // Signing in is what this page is for: start loading the auth client now rather than on submit.
  useEffect(() => void getSupabase().catch(() => undefined), []);
  // A session that still owes its second factor finishes signing in here.
  const secondStep = auth.status === 'signed-in' && needsSecondFactor(auth.session);
  if (auth.status === 'signed-in' && !secondStep) return <Navigate to={paths.dashboard} replace />;
  return (
    <>
      <Seo title="Sign In" description="Sign in to your NodeHarbor dashboard to manage your hosted nodes, credit and account." path={paths.login} />
      <AuthCard title="Sign in" description="Welcome back. Sign in to manage your nodes.">
        {secondStep ? <MfaChallengeForm /> : <LoginForm />}
        <div className="mt-6 flex flex-col gap-2 text-center text-sm">
          <Link to={paths.resetPassword} className="text-primary hover:underline">
            Forgot your password?
          </Link>
          <p className="text-muted-foreground">
            No account yet?{' '}
            <Link to={paths.register} className="text-primary hover:underline">
              Register
            </Link>
          </p>
        </div>
      </AuthCard>
    </>
  );
}
