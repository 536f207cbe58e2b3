import { confirmsAccountEmail } from '@shared/validation';
import { useState } from 'react';
import { Button } from '@/components/ui/button';
import { Dialog } from '@/components/ui/dialog';
import { FormField } from '@/components/ui/form-field';
import { Input } from '@/components/ui/input';
import { errorText } from '@/lib/error-text';
import { useFormat } from '@/lib/format';
import { toast } from '@/lib/toast';
import { useDeleteUser } from '../api/delete-user';

/** Deletes the account as its owner's own deletion does, confirmed by typing its e-mail address. */
export function DeleteUserDialog({ user, onDeleted }: { user: { id: string; email: string; balance: number }; onDeleted: () => void }) {
  const f = useFormat();
  const [open, setOpen] = useState(false);
  const [typed, setTyped] = useState('');
  const remove = useDeleteUser();

  const onOpenChange = (next: boolean) => {
    setOpen(next);
    if (!next) setTyped('');
  };

  const confirm = async () => {
    try {
      await remove.mutateAsync({ userId: user.id, email: typed });
      toast.success('User deleted', `The account of ${user.email} has been deleted. Its ledger is kept.`);
      onDeleted();
    } catch (e) {
      toast.error('Action failed', errorText(e));
    }
  };

  return (
    <Dialog
      open={open}
      onOpenChange={onOpenChange}
      title="Delete this account?"
      description="This cannot be undone."
      trigger={<Button variant="destructive">Delete account</Button>}
    >
      <ul className="list-disc space-y-1 pl-5 text-sm">
        <li>Every service is stopped and its node removed.</li>
        <li>The profile, sign-in methods and two-factor settings are erased, with the messages this person sent us.</li>
        <li>The remaining credit of {f.money(user.balance)} can no longer be used.</li>
        <li>The record of payments and charges is kept, as the law requires.</li>
      </ul>
      <form
        className="mt-4 space-y-4"
        onSubmit={(e) => {
          e.preventDefault();
          void confirm();
        }}
      >
        <FormField id="delete-user-email" label={`Type ${user.email} to confirm`}>
          <Input id="delete-user-email" type="email" autoComplete="off" value={typed} onChange={(e) => setTyped(e.target.value)} />
        </FormField>
        <div className="flex justify-end gap-2">
          <Button type="button" variant="outline" onClick={() => onOpenChange(false)}>
            Cancel
          </Button>
          <Button type="submit" variant="destructive" disabled={!confirmsAccountEmail(typed, user.email) || remove.isPending}>
            {remove.isPending ? 'Deleting...' : 'Delete this account'}
          </Button>
        </div>
      </form>
    </Dialog>
  );
}
