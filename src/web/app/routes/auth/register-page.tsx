import { REGISTER_LOADING_MS } from '@shared/constants';
import { lazy, Suspense, useEffect, useState } from 'react';
import { Link } from 'react-router';
import { Button } from '@/components/ui/button';
import { Spinner } from '@/components/ui/spinner';
import { paths } from '@/config/paths';
import { AuthCard } from '@/features/auth/components/auth-card';
import { useAppConfig } from '@/lib/app-config';
import { Seo } from '@/lib/seo';

const SignUpForm = lazy(() => import('@/features/auth/components/sign-up-form').then((m) => ({ default: m.SignUpForm })));

export default function RegisterPage() {
  const [waited, setWaited] = useState(false);
  const { data: config, isError } = useAppConfig();
  // Spec §2: a short loading state (about 100 ms) before the notice.
  useEffect(() => {
    const t = setTimeout(() => setWaited(true), REGISTER_LOADING_MS);
    return () => clearTimeout(t);
  }, []);
  const ready = waited && (config !== undefined || isError);

  return (
    <>
      <Seo title="Register" description="Create a NodeHarbor account to host blockchain gaming nodes." path={paths.register} />
      {!ready ? (
        <Spinner label="Loading..." />
      ) : config?.registrationEnabled ? (
        <AuthCard title="Create an account" description="Host your first node in minutes.">
          <Suspense fallback={<Spinner label="Loading..." />}>
            <SignUpForm />
          </Suspense>
          <p className="mt-6 text-center text-sm text-muted-foreground">
            Already have an account?{' '}
            <Link to={paths.login} className="text-primary underline underline-offset-4">
              Sign in
            </Link>
          </p>
        </AuthCard>
      ) : (
        <AuthCard title="Registration Disabled">
          <p className="text-muted-foreground">
            Registration is currently disabled while we build a new dashboard. If you need an account, please contact support.
          </p>
          <div className="mt-6 flex flex-col gap-3 sm:flex-row">
            <Button asChild>
              <Link to={paths.login}>Sign in</Link>
            </Button>
            <Button asChild variant="outline">
              <Link to={paths.contact}>Contact support</Link>
            </Button>
          </div>
        </AuthCard>
      )}
    </>
  );
}
