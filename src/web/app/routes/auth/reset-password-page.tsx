import { Suspense } from 'react';
import { Link } from 'react-router';
import { Spinner } from '@/components/ui/spinner';
import { paths } from '@/config/paths';
import { AuthCard } from '@/features/auth/components/auth-card';
import { InvalidResetLinkNotice } from '@/features/auth/components/invalid-reset-link-notice';
import { deferUntilInteraction } from '@/lib/deferred-hydration';
import { Seo } from '@/lib/seo';

// The form's code (react-hook-form, the zod rules) loads on the first interaction.
const ResetRequestForm = deferUntilInteraction(() => import('@/features/auth/components/reset-request-form').then((m) => m.ResetRequestForm));

export default function ResetPasswordPage() {
  return (
    <>
      <Seo
        title="Reset Password"
        description="Forgot your NodeHarbor password? Enter your email address and we will send you a link to set a new one."
        path={paths.resetPassword}
      />
      <AuthCard title="Reset your password" description="Enter your email address and we will send you a link to set a new password.">
        <InvalidResetLinkNotice />
        <Suspense fallback={<Spinner label="Loading..." />}>
          <ResetRequestForm />
        </Suspense>
        <p className="mt-6 text-center text-sm">
          <Link to={paths.login} className="text-primary underline underline-offset-4">
            Back to sign in
          </Link>
        </p>
      </AuthCard>
    </>
  );
}
