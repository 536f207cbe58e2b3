import { PASSWORD_MIN } from '@shared/constants';
import { lazy, Suspense, useEffect, useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { Button } from '@/components/ui/button';
import { Spinner } from '@/components/ui/spinner';
import { paths } from '@/config/paths';
import { AuthCard } from '@/features/auth/components/auth-card';
import { parseResetLink } from '@/features/auth/reset-link';
import { Seo } from '@/lib/seo';
import { getSupabase } from '@/lib/supabase';
import { toast } from '@/lib/toast';

// Shown once the link is checked, never prerendered: its code loads when it is shown.
const NewPasswordForm = lazy(() => import('@/features/auth/components/new-password-form').then((m) => ({ default: m.NewPasswordForm })));

const INVALID_TEXT = 'This password reset link is invalid or has expired. Please request a new one.';

type LinkCheck = { state: 'ready' } | { state: 'invalid'; error: string | null } | { state: 'refused' };

/** Reads the link's fragment, clears it from the address bar, and opens the recovery session. */
async function checkResetLink(): Promise<LinkCheck> {
  const link = parseResetLink(window.location.hash);
  // The tokens must not stay in the address bar, the history or a bookmark.
  if (window.location.hash) history.replaceState(history.state, '', window.location.pathname + window.location.search);
  if (!link.ok) return { state: 'invalid', error: link.error };
  try {
    const { error } = await (await getSupabase()).auth.setSession({ access_token: link.accessToken, refresh_token: link.refreshToken });
    return error ? { state: 'refused' } : { state: 'ready' };
  } catch {
    return { state: 'refused' };
  }
}

let linkCheck: Promise<LinkCheck> | undefined;

export default function ResetPasswordConfirmPage() {
  const navigate = useNavigate();
  const [check, setCheck] = useState<LinkCheck | null>(null);
  const state = check?.state ?? 'validating';

  useEffect(() => {
    // Once per page load: StrictMode mounts twice, and the fragment is gone after the first read.
    linkCheck ??= checkResetLink();
    let live = true;
    void linkCheck.then((c) => {
      if (!live) return;
      setCheck(c);
      if (c.state === 'invalid' && c.error) toast.error('Reset link error', c.error);
      if (c.state === 'refused') {
        toast.error('Invalid reset link', INVALID_TEXT);
        navigate(paths.resetPassword, { replace: true });
      }
    });
    return () => {
      live = false;
      // Leaving the page ends this check: a later visit reads its own link.
      linkCheck = undefined;
    };
  }, [navigate]);

  return (
    <>
      <Seo title="Set New Password" description="Choose a new password for your NodeHarbor account." path={paths.resetPasswordConfirm} noindex />
      {state === 'validating' && <Spinner label="Validating reset link..." />}
      {state === 'ready' && (
        <AuthCard title="Set new password" description={`Choose a new password of at least ${PASSWORD_MIN} characters.`}>
          <Suspense fallback={<Spinner label="Loading..." />}>
          <NewPasswordForm />
        </Suspense>
        </AuthCard>
      )}
      {state === 'invalid' && (
        <AuthCard title="Invalid Reset Link">
          <p className="text-muted-foreground">{INVALID_TEXT}</p>
          <Button asChild className="mt-6 w-full">
            <Link to={paths.resetPassword}>Request a new link</Link>
          </Button>
        </AuthCard>
      )}
    </>
  );
}
