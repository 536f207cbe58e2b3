import { confirmsAccountEmail } from '@shared/validation';
import { useState } from 'react';
import { useNavigate } from 'react-router';
import { Button } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { Dialog } from '@/components/ui/dialog';
import { FormField } from '@/components/ui/form-field';
import { Input } from '@/components/ui/input';
import { paths } from '@/config/paths';
import { useBalance } from '@/lib/balance';
import type { SignedInUser } from '@/lib/signed-in-user';
import { useFormat } from '@/lib/format';
import { errorText } from '@/lib/error-text';
import { toast } from '@/lib/toast';
import { forgetDeletedSession, useDeleteAccount } from '../api/delete-account';

/** The danger zone: deleting the account, confirmed by typing its e-mail address. */
export function DeleteAccountCard({ user }: { user: SignedInUser }) {
  const [open, setOpen] = useState(false);
  const [typed, setTyped] = useState('');
  const remove = useDeleteAccount();
  const balance = useBalance(user.id);
  const f = useFormat();
  const navigate = useNavigate();

  const onOpenChange = (next: boolean) => {
    setOpen(next);
    if (!next) setTyped('');
  };

  const confirm = async () => {
    try {
      await remove.mutateAsync(typed);
      toast.success('Account deleted', 'Your account and your data have been removed.');
      // Where every sign-out ends, and where the dashboard's guard sends a signed-out visitor anyway.
      await forgetDeletedSession();
      await navigate(paths.login, { replace: true });
    } catch (e) {
      toast.error('Error deleting account', errorText(e));
    }
  };

  return (
    <Card role="region" aria-labelledby="danger-heading" className="border-destructive/50 lg:col-span-2">
      <h2 id="danger-heading" className="text-lg font-semibold text-destructive">
        Danger Zone
      </h2>
      <p className="mt-2 text-sm text-muted-foreground">Deleting your account stops every service and cannot be undone.</p>
      <Button variant="destructive" className="mt-4" onClick={() => setOpen(true)}>
        Delete Account
      </Button>
      <Dialog open={open} onOpenChange={onOpenChange} title="Delete your account?" description="This cannot be undone.">
        <ul className="list-disc space-y-1 pl-5 text-sm">
          <li>Every service is stopped and its node removed.</li>
          <li>Your profile, sign-in methods and two-factor settings are erased, with the messages you sent us.</li>
          <li>
            Your remaining credit{balance.data !== undefined ? ` of ${f.money(balance.data)}` : ''} can no longer be used. Contact us before deleting if you
            want it back.
          </li>
          <li>We keep the record of your payments and charges, as the law requires.</li>
        </ul>
        <form
          className="mt-4 space-y-4"
          onSubmit={(e) => {
            e.preventDefault();
            void confirm();
          }}
        >
          <FormField id="delete-confirm-email" label={`Type ${user.email} to confirm`}>
            <Input id="delete-confirm-email" type="email" autoComplete="off" value={typed} onChange={(e) => setTyped(e.target.value)} />
          </FormField>
          <div className="flex justify-end gap-2">
            <Button type="button" variant="outline" onClick={() => onOpenChange(false)}>
              Cancel
            </Button>
            <Button type="submit" variant="destructive" disabled={!confirmsAccountEmail(typed, user.email) || remove.isPending}>
              {remove.isPending ? 'Deleting account...' : 'Delete my account'}
            </Button>
          </div>
        </form>
      </Dialog>
    </Card>
  );
}
