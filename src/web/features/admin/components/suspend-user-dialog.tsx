import { useState } from 'react';
import { Button } from '@/components/ui/button';
import { Dialog } from '@/components/ui/dialog';
import { FormField } from '@/components/ui/form-field';
import { Input } from '@/components/ui/input';
import { errorText } from '@/lib/error-text';
import { toast } from '@/lib/toast';
import { useSuspendUser } from '../api/suspend-user';

/** The first day a suspension may end on: tomorrow, in the admin's calendar (YYYY-MM-DD). */
function tomorrow(): string {
  const d = new Date();
  d.setDate(d.getDate() + 1);
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
}

/** Suspends the user, until a day or until reactivated: they are signed out at once and cannot sign in. */
export function SuspendUserDialog({ user }: { user: { id: string; email: string } }) {
  const [open, setOpen] = useState(false);
  const [until, setUntil] = useState('');
  const suspend = useSuspendUser();

  const confirm = async () => {
    try {
      // The start of the chosen day where the admin is.
      await suspend.mutateAsync({ userId: user.id, until: until ? new Date(`${until}T00:00:00`).toISOString() : null });
      toast.success('User suspended', `${user.email} is signed out and cannot sign in.`);
      setOpen(false);
    } catch (e) {
      toast.error('Action failed', errorText(e));
    }
  };

  return (
    <Dialog
      open={open}
      onOpenChange={(next) => {
        setOpen(next);
        if (!next) setUntil('');
      }}
      title="Suspend this user?"
      description={`${user.email} is signed out everywhere at once and cannot sign in until the suspension ends. Their services and data stay.`}
      trigger={<Button variant="outline">Suspend</Button>}
    >
      <form
        className="space-y-4"
        onSubmit={(e) => {
          e.preventDefault();
          void confirm();
        }}
      >
        <FormField id="suspend-until" label="Suspended until (optional)">
          <Input
            id="suspend-until"
            type="date"
            min={tomorrow()}
            aria-describedby="suspend-until-hint"
            value={until}
            onChange={(e) => setUntil(e.target.value)}
          />
          <p id="suspend-until-hint" className="text-xs text-muted-foreground">
            Leave empty to suspend until reactivated.
          </p>
        </FormField>
        <div className="flex justify-end gap-2">
          <Button type="button" variant="outline" onClick={() => setOpen(false)}>
            Cancel
          </Button>
          <Button type="submit" variant="destructive" disabled={suspend.isPending}>
            {suspend.isPending ? 'Suspending...' : 'Suspend user'}
          </Button>
        </div>
      </form>
    </Dialog>
  );
}
