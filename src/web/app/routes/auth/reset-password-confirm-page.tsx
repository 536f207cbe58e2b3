import { useEffect, useRef, useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { Button } from '@/components/ui/button';
import { Spinner } from '@/components/ui/spinner';
import { paths } from '@/config/paths';
import { AuthCard } from '@/features/auth/components/auth-card';
import { NewPasswordForm } from '@/features/auth/components/new-password-form';
import { parseResetLink, type ResetLink } from '@/features/auth/reset-link';
import { Seo } from '@/lib/seo';
import { getSupabase } from '@/lib/supabase';
import { toast } from '@/lib/toast';

const INVALID_TEXT = 'This password reset link is invalid or has expired. Please request a new one.';

export default function ResetPasswordConfirmPage() {
  const [state, setState] = useState<'validating' | 'ready' | 'invalid'>('validating');
  const navigate = useNavigate();
  // Read once: the fragment is cleared below, and StrictMode runs effects twice.
  const linkRef = useRef<ResetLink | null>(null);

  useEffect(() => {
    const link = (linkRef.current ??= parseResetLink(window.location.hash));
    // The tokens must not stay in the address bar, the history or a bookmark.
    if (window.location.hash) history.replaceState(history.state, '', window.location.pathname + window.location.search);
    if (!link.ok) {
      if (link.error) toast.error('Reset link error', link.error);
      setState('invalid');
      return;
    }
    let live = true;
    getSupabase()
      .then((s) => s.auth.setSession({ access_token: link.accessToken, refresh_token: link.refreshToken }))
      .then(({ error }) => {
        if (error) throw error;
        if (live) setState('ready');
      })
      .catch(() => {
        if (!live) return;
        toast.error('Invalid reset link', INVALID_TEXT);
        navigate(paths.resetPassword, { replace: true });
      });
    return () => {
      live = false;
    };
  }, [navigate]);

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
