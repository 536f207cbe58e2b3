import { useState } from 'react';
import { useNavigate } from 'react-router';
import { Button } from '@/components/ui/button';
import { FormField } from '@/components/ui/form-field';
import { Input } from '@/components/ui/input';
import { paths } from '@/config/paths';
import { showAuthError } from '@/features/auth/auth-error';
import { signInWithRecoveryCode } from '@/lib/recovery-code';
import { getSupabase } from '@/lib/supabase';
import { toast } from '@/lib/toast';

/**
 * The second step of signing in: a code from the authenticator app of the user's verified TOTP
 * factor or, with the phone lost, one of their recovery codes.
 */
export function MfaChallengeForm() {
  const navigate = useNavigate();
  const [code, setCode] = useState('');
  const [useRecovery, setUseRecovery] = useState(false);
  const [busy, setBusy] = useState(false);

  const verifyAppCode = async () => {
    const supabase = await getSupabase();
    const { data: factors, error: listError } = await supabase.auth.mfa.listFactors();
    if (listError) throw listError;
    const factor = factors.totp[0];
    if (!factor) throw new Error('No authenticator is set up for this account');
    const { error } = await supabase.auth.mfa.challengeAndVerify({ factorId: factor.id, code: code.trim() });
    if (error) throw error;
  };

  const verify = async () => {
    setBusy(true);
    try {
      await (useRecovery ? signInWithRecoveryCode(code) : verifyAppCode());
      toast.success('Welcome back!');
      navigate(paths.dashboard, { replace: true });
    } catch (e) {
      showAuthError(e);
      setBusy(false);
    }
  };

  const switchMode = () => {
    setUseRecovery(!useRecovery);
    setCode('');
  };

  const cancel = async () => {
    const supabase = await getSupabase();
    await supabase.auth.signOut({ scope: 'local' });
  };

  return (
    <form
      noValidate
      className="space-y-4"
      onSubmit={(e) => {
        e.preventDefault();
        void verify();
      }}
    >
      {useRecovery ? (
        <>
          <p className="text-sm text-muted-foreground">
            Enter one of the recovery codes you saved when you set up two-factor authentication. Each code works once.
          </p>
          <FormField id="mfa-recovery-code" label="Recovery code">
            <Input
              id="mfa-recovery-code"
              autoComplete="off"
              autoCapitalize="none"
              spellCheck={false}
              placeholder="xxxx-xxxx-xxxx-xxxx"
              value={code}
              onChange={(e) => setCode(e.target.value)}
            />
          </FormField>
        </>
      ) : (
        <>
          <p className="text-sm text-muted-foreground">Enter the 6-digit code from your authenticator app.</p>
          <FormField id="mfa-login-code" label="Authentication code">
            <Input id="mfa-login-code" inputMode="numeric" autoComplete="one-time-code" maxLength={6} value={code} onChange={(e) => setCode(e.target.value)} />
          </FormField>
        </>
      )}
      <Button type="submit" className="w-full" disabled={busy || (useRecovery ? code.trim() === '' : code.trim().length !== 6)}>
        {busy ? 'Verifying...' : 'Verify'}
      </Button>
      <Button type="button" variant="link" className="w-full" onClick={switchMode}>
        {useRecovery ? 'Use your authenticator app' : 'Use a recovery code'}
      </Button>
      <Button type="button" variant="ghost" className="w-full" onClick={() => void cancel()}>
        Use another account
      </Button>
    </form>
  );
}
