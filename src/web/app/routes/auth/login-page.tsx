import { ADDRESS_LINK_PARAM } from '@shared/constants';
import { lazy, Suspense, useEffect, useState } from 'react';
import { Link, Navigate } from 'react-router';
import { Spinner } from '@/components/ui/spinner';
import { paths } from '@/config/paths';
import { useAuth } from '@/lib/auth';
import { AuthCard } from '@/features/auth/components/auth-card';
import { deferUntilInteraction, leftFirstPage } from '@/lib/deferred-hydration';
import { needsSecondFactor } from '@/lib/second-factor';
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

/** The token of the e-mailed link that lets a new address in, taken once: it must not stay in the address bar or the history. */
function takeAddressLinkToken(): string | null {
  const token = new URLSearchParams(window.location.hash.slice(1)).get(ADDRESS_LINK_PARAM);
  if (token) history.replaceState(history.state, '', window.location.pathname + window.location.search);
  return token;
}

export default function LoginPage() {
  const auth = useAuth();
  const [usingLink, setUsingLink] = useState(false);
  useEffect(() => {
    const followLink = () => {
      const token = takeAddressLinkToken();
      if (!token) return;
      // The page shown is no longer the prerendered one: the form, if the link fails, loads at once.
      leftFirstPage();
      void import('@/features/auth/address-link').then(async (m) => {
        setUsingLink(true);
        try {
          await m.signInWithAddressLink(token);
        } finally {
          setUsingLink(false);
        }
      });
    };
    followLink();
    // The link pasted into a tab already on this page changes only the fragment.
    window.addEventListener('hashchange', followLink);
    return () => window.removeEventListener('hashchange', followLink);
  }, []);
  // A session that still owes its second factor finishes signing in here.
  const secondStep = auth.status === 'signed-in' && needsSecondFactor(auth.session);
  if (auth.status === 'signed-in' && !secondStep) return <Navigate to={paths.dashboard} replace />;
  return (
    <>
      <Seo title="Sign In" description="Sign in to your NodeHarbor dashboard to manage your hosted nodes, credit and account." path={paths.login} />
      <AuthCard title="Sign in" description="Welcome back. Sign in to manage your nodes.">
        {usingLink ? (
          <Spinner label="Signing in with your link..." />
        ) : (
          <Suspense fallback={<Spinner label="Loading..." />}>{secondStep ? <MfaChallengeForm /> : <LoginForm />}</Suspense>
        )}
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
