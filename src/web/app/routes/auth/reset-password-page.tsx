import { Link } from 'react-router';
import { paths } from '@/config/paths';
import { AuthCard } from '@/features/auth/components/auth-card';
import { ResetRequestForm } from '@/features/auth/components/reset-request-form';
import { Seo } from '@/lib/seo';

export default function ResetPasswordPage() {
  return (
    <>
      <Seo title="Reset Password" description="Forgot your NodeHarbor password? Enter your email address and we will send you a link to set a new one." path={paths.resetPassword} />
      <AuthCard title="Reset your password" description="Enter your email address and we will send you a link to set a new password.">
        <ResetRequestForm />
        <p className="mt-6 text-center text-sm">
          <Link to={paths.login} className="text-primary underline underline-offset-4">
            Back to sign in
          </Link>
        </p>
      </AuthCard>
    </>
  );
}
