import { AUTHENTICATOR_NAME_MAX } from '@shared/constants';
import { ShieldCheck } from 'lucide-react';
import { useState } from 'react';
import { Button } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { InputField } from '@/components/ui/form-field';
import { QueryState } from '@/components/ui/query-state';
import { errorText } from '@/lib/error-text';
import { toast } from '@/lib/toast';
import { useEnrollFactor, type Enrollment } from '../api/enroll-factor';
import { useFactors } from '../api/list-factors';
import { regenerateRecoveryCodes } from '../api/recovery-codes';
import { useVerifyFactor } from '../api/verify-factor';
import { DEFAULT_FACTOR_NAME, factorLabel, factorNameToEnrol } from '../factor-name';
import { RecoveryCodes } from './recovery-codes';
import { RemoveFactorDialog } from './remove-factor-dialog';

/** TOTP two-factor authentication: enrol with an authenticator app, verify a code, remove with a fresh code; and its recovery codes. */
export function TwoFactorCard() {
  const factors = useFactors();
  const enroll = useEnrollFactor();
  const verify = useVerifyFactor();
  const [pending, setPending] = useState<Enrollment | null>(null);
  const [name, setName] = useState(DEFAULT_FACTOR_NAME);
  const [code, setCode] = useState('');
  const [recoveryCodes, setRecoveryCodes] = useState<string[] | null>(null);

  const start = async () => {
    try {
      setPending(await enroll.mutateAsync(factorNameToEnrol(name)));
    } catch (e) {
      toast.error('Could not start two-factor setup', errorText(e));
    }
  };

  const confirm = async () => {
    if (!pending) return;
    try {
      await verify.mutateAsync({ factorId: pending.id, code: code.trim() });
      toast.success('Two-factor authentication enabled', 'You will be asked for a code when you sign in.');
      setPending(null);
      setCode('');
    } catch (e) {
      toast.error('Invalid code', errorText(e));
      return;
    }
    try {
      setRecoveryCodes(await regenerateRecoveryCodes());
    } catch (e) {
      toast.error('Could not create recovery codes', errorText(e));
    }
  };

  return (
    <Card role="region" aria-labelledby="mfa-heading">
      <h2 id="mfa-heading" className="text-lg font-semibold">
        Two-Factor Authentication
      </h2>
      <p className="mt-1 text-sm text-muted-foreground">Ask for a code from an authenticator app at every sign-in.</p>
      <QueryState query={factors} loading="Loading..." failed="Failed to load your authenticators." failedClassName="mt-4 text-sm">
        {(data) => (
          <ul className="mt-4 space-y-2" aria-label="Authenticators">
            {data.map((f) => (
              <li key={f.id} className="flex items-center justify-between gap-2 rounded-md border border-border p-2 text-sm">
                <span className="flex items-center gap-2">
                  <ShieldCheck className="size-4 text-green-700 dark:text-green-400" aria-hidden="true" /> {factorLabel(f.friendly_name)}
                </span>
                <RemoveFactorDialog factor={f} />
              </li>
            ))}
          </ul>
        )}
      </QueryState>
      {(recoveryCodes || !!factors.data?.length) && <RecoveryCodes codes={recoveryCodes} onCodes={setRecoveryCodes} />}
      {pending ? (
        <div className="mt-4 space-y-4">
          <p className="text-sm">Scan this QR code with your authenticator app, or enter the secret by hand, then type the 6-digit code it shows.</p>
          <img src={pending.qrCode} alt="QR code for your authenticator app" width={180} height={180} className="rounded bg-white p-2" />
          <p className="text-sm">
            Secret:{' '}
            <code className="break-all rounded bg-muted px-1" data-testid="totp-secret">
              {pending.secret}
            </code>
          </p>
          <InputField
            id="mfa-code"
            label="Verification code"
            inputMode="numeric"
            autoComplete="one-time-code"
            maxLength={6}
            value={code}
            onChange={(e) => setCode(e.target.value)}
          />
          <div className="flex gap-2">
            <Button disabled={code.trim().length !== 6 || verify.isPending} onClick={() => void confirm()}>
              {verify.isPending ? 'Verifying...' : 'Verify and enable'}
            </Button>
            <Button variant="outline" onClick={() => setPending(null)}>
              Cancel
            </Button>
          </div>
        </div>
      ) : (
        factors.data?.length === 0 && (
          <form
            className="mt-4 space-y-4"
            onSubmit={(e) => {
              e.preventDefault();
              void start();
            }}
          >
            <InputField
              id="mfa-name"
              label="Authenticator name"
              maxLength={AUTHENTICATOR_NAME_MAX}
              autoComplete="off"
              value={name}
              onChange={(e) => setName(e.target.value)}
            />
            <Button type="submit" disabled={enroll.isPending}>
              Enable two-factor authentication
            </Button>
          </form>
        )
      )}
    </Card>
  );
}
