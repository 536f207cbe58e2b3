import { PASSWORD_MIN } from '@shared/constants';
import { lazy, Suspense, useEffect, useState } from 'react';
import { useNavigate } from 'react-router';
import { Spinner } from '@/components/ui/spinner';
import { paths } from '@/config/paths';
import { AuthCard } from '@/features/auth/components/auth-card';
import { INVALID_RESET_LINK_STATE } from '@/features/auth/components/invalid-reset-link-notice';
import { parseResetLink } from '@/features/auth/reset-link';
import { Seo } from '@/lib/seo';
import { getSupabase } from '@/lib/supabase';
import { toast } from '@/lib/toast';

// Shown once the link is checked, never prerendered: its code loads when it is shown.
const NewPasswordForm = lazy(() => import('@/features/auth/components/new-password-form').then((m) => ({ default: m.NewPasswordForm })));

/** An unusable link carries the server's reason when /auth/v1/verify refused it (spent or expired). */
type LinkCheck = { state: 'ready' } | { state: 'invalid'; error: string | null };

/** Reads the link's fragment, clears it from the address bar, and opens the recovery session. */
async function checkResetLink(): Promise<LinkCheck> {
  const link = parseResetLink(window.location.hash);
  // The tokens must not stay in the address bar, the history or a bookmark.
  if (window.location.hash) history.replaceState(history.state, '', window.location.pathname + window.location.search);
  if (!link.ok) return { state: 'invalid', error: link.error };
  try {
    const { error } = await (await getSupabase()).auth.setSession({ access_token: link.accessToken, refresh_token: link.refreshToken });
    return error ? { state: 'invalid', error: null } : { state: 'ready' };
  } catch {
    return { state: 'invalid', error: null };
  }
}

let linkCheck: Promise<LinkCheck> | undefined;

export default function ResetPasswordConfirmPage() {
  const navigate = useNavigate();
  const [ready, setReady] = useState(false);

  useEffect(() => {
    // Once per page load: StrictMode mounts twice, and the fragment is gone after the first read.
    linkCheck ??= checkResetLink();
    let live = true;
    void linkCheck.then((c) => {
      if (!live) return;
      if (c.state === 'ready') return setReady(true);
      // Spec §8: /reset-password, which says "Invalid reset link" above its form, with the toast
      // over it. The toast's code then loads with that page's, not as this one's (decision 017).
      navigate(paths.resetPassword, { replace: true, state: INVALID_RESET_LINK_STATE });
      toast.error('Reset link error', c.error ?? undefined);
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
      {ready ? (
        <AuthCard title="Set new password" description={`Choose a new password of at least ${PASSWORD_MIN} characters.`}>
          <Suspense fallback={<Spinner label="Loading..." />}>
            <NewPasswordForm />
          </Suspense>
        </AuthCard>
      ) : (
        <Spinner label="Validating reset link..." />
      )}
    </>
  );
}
