import { Trash2 } from 'lucide-react';
import { useState } from 'react';
import { Button } from '@/components/ui/button';
import { Dialog } from '@/components/ui/dialog';
import { InputField } from '@/components/ui/form-field';
import { errorText } from '@/lib/error-text';
import { signInWithRecoveryCode } from '@/lib/recovery-code';
import { toast } from '@/lib/toast';
import type { TotpFactor } from '../api/list-factors';
import { useUnenrollFactor } from '../api/unenroll-factor';
import { verifyFactor } from '../api/verify-factor';
import { factorLabel } from '../factor-name';

/** An authenticator app's code: six digits. Anything else typed is taken for a recovery code. */
const APP_CODE = /^\d{6}$/;

/**
 * Removes the authenticator after a current code of it, or a recovery code: the server takes the
 * removal only within minutes of one (a session left open is not enough), and the dialog is the
 * confirmation.
 */
export function RemoveFactorDialog({ factor }: { factor: TotpFactor }) {
  const [open, setOpen] = useState(false);
  const [code, setCode] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [checking, setChecking] = useState(false);
  const unenroll = useUnenrollFactor();
  const label = factorLabel(factor.friendly_name);

  const onOpenChange = (next: boolean) => {
    setOpen(next);
    if (!next) {
      setCode('');
      setError(null);
    }
  };

  const remove = async () => {
    const typed = code.trim();
    setChecking(true);
    try {
      await (APP_CODE.test(typed) ? verifyFactor({ factorId: factor.id, code: typed }) : signInWithRecoveryCode(typed));
    } catch (e) {
      setError(errorText(e));
      return;
    } finally {
      setChecking(false);
    }
    try {
      await unenroll.mutateAsync(factor.id);
      toast.success('Two-factor authentication removed');
      onOpenChange(false);
    } catch (e) {
      toast.error('Could not remove the authenticator', errorText(e));
    }
  };

  const busy = checking || unenroll.isPending;
  return (
    <>
      <Button variant="ghost" size="sm" onClick={() => setOpen(true)} aria-label={`Remove ${label}`}>
        <Trash2 className="size-4" aria-hidden="true" /> Remove
      </Button>
      <Dialog
        open={open}
        onOpenChange={onOpenChange}
        title="Remove two-factor authentication?"
        description="You will sign in with your password alone, and your recovery codes will stop working."
      >
        <form
          className="space-y-4"
          onSubmit={(e) => {
            e.preventDefault();
            void remove();
          }}
        >
          <InputField
            id="remove-factor-code"
            label="Code from your app, or a recovery code"
            autoComplete="one-time-code"
            maxLength={40}
            value={code}
            error={error ?? undefined}
            onChange={(e) => {
              setCode(e.target.value);
              setError(null);
            }}
          />
          <div className="flex justify-end gap-2">
            <Button type="button" variant="outline" onClick={() => onOpenChange(false)}>
              Cancel
            </Button>
            <Button type="submit" variant="destructive" disabled={code.trim() === '' || busy}>
              {busy ? 'Removing...' : 'Remove two-factor authentication'}
            </Button>
          </div>
        </form>
      </Dialog>
    </>
  );
}
