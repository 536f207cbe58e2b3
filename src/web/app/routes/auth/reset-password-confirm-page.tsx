import { useQuery } from '@tanstack/react-query';
import { useEffect } from 'react';
import { Link, useNavigate } from 'react-router';
import { Button } from '@/components/ui/button';
import { Spinner } from '@/components/ui/spinner';
import { paths } from '@/config/paths';
import { AuthCard } from '@/features/auth/components/auth-card';
import { NewPasswordForm } from '@/features/auth/components/new-password-form';
import { parseResetLink } from '@/features/auth/reset-link';
import { Seo } from '@/lib/seo';
import { getSupabase } from '@/lib/supabase';
import { toast } from '@/lib/toast';

const INVALID_TEXT = 'This password reset link is invalid or has expired. Please request a new one.';

type LinkCheck = { state: 'ready' } | { state: 'invalid'; error: string | null } | { state: 'refused' };

/** Reads the link's fragment once, clears it from the address bar, and opens the recovery session. */
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

export default function ResetPasswordConfirmPage() {
  const navigate = useNavigate();
  // A query, so the fragment is read once even when StrictMode mounts the page twice.
  const { data: check } = useQuery({ queryKey: ['reset-link'], queryFn: checkResetLink, retry: false, staleTime: Infinity, gcTime: 0 });
  const state = check?.state ?? 'validating';

  useEffect(() => {
    if (check?.state === 'invalid' && check.error) toast.error('Reset link error', check.error);
    if (check?.state === 'refused') {
      toast.error('Invalid reset link', INVALID_TEXT);
      navigate(paths.resetPassword, { replace: true });
    }
  }, [check, navigate]);

  return (
    <>
      <Seo title="Set New Password" description="Choose a new password for your NodeHarbor account." path={paths.resetPasswordConfirm} noindex />
      {state === 'validating' && <Spinner label="Validating reset link..." />}
      {state === 'ready' && (
        <AuthCard title="Set new password" description="Choose a new password of at least 6 characters.">
          <NewPasswordForm />
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
