import { ADMIN_CREDIT_NOTE_MAX } from '@shared/constants';
import { adminCreditErrors } from '@shared/validation';
import { useState } from 'react';
import { Button } from '@/components/ui/button';
import { Dialog } from '@/components/ui/dialog';
import { FormField, InputField, invalidProps } from '@/components/ui/form-field';
import { Textarea } from '@/components/ui/input';
import { useFormat } from '@/lib/format';
import { toast } from '@/lib/toast';
import { useTouchedFields } from '@/lib/use-touched-fields';
import { useAddCredit } from '../api/add-credit';

export function AddCreditDialog({ user }: { user: { user_id: string; email: string } }) {
  const [open, setOpen] = useState(false);
  return (
    <Dialog
      open={open}
      onOpenChange={setOpen}
      title="Add credit"
      description={`Add credit to ${user.email}. The note is shown in their billing history.`}
      trigger={
        <Button variant="outline" size="sm" aria-label={`Add credit to ${user.email}`}>
          Add credit
        </Button>
      }
    >
      {open && <AddCreditForm user={user} onDone={() => setOpen(false)} />}
    </Dialog>
  );
}

function AddCreditForm({ user, onDone }: { user: { user_id: string; email: string }; onDone: () => void }) {
  const f = useFormat();
  const add = useAddCredit();
  const [amount, setAmount] = useState('');
  const [note, setNote] = useState('');
  const [idempotencyKey] = useState(() => crypto.randomUUID());
  const { isTouched, track } = useTouchedFields<'amount' | 'note'>();
  const value = amount.trim() === '' ? Number.NaN : Number(amount);
  const problems = adminCreditErrors(value, note);
  // Submit waits for both fields, so a field speaks once it has been left.
  const shown = (field: 'amount' | 'note') => (isTouched(field) && problems[field]) || undefined;
  const valid = !problems.amount && !problems.note;

  const submit = async () => {
    try {
      const balance = await add.mutateAsync({ userId: user.user_id, amount: value, note: note.trim(), idempotencyKey });
      toast.success('Credit added', `${f.money(value)} added to ${user.email}. New balance: ${f.money(balance)}.`);
      onDone();
    } catch (e) {
      toast.error('Failed to add credit', e instanceof Error ? e.message : undefined);
    }
  };

  return (
    <form
      className="space-y-4"
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        if (valid) void submit();
      }}
    >
      <InputField
        id="credit-amount"
        label="Amount (USD)"
        error={shown('amount')}
        type="number"
        min={0.01}
        step={0.01}
        value={amount}
        wrapper={track('amount')}
        onChange={(e) => setAmount(e.target.value)}
      />
      <FormField id="credit-note" label="Note" error={shown('note')} wrapper={track('note')}>
        <Textarea
          id="credit-note"
          maxLength={ADMIN_CREDIT_NOTE_MAX}
          className="min-h-20"
          value={note}
          onChange={(e) => setNote(e.target.value)}
          {...invalidProps('credit-note', shown('note'))}
        />
      </FormField>
      <Button type="submit" className="w-full" disabled={!valid || add.isPending}>
        {add.isPending ? 'Adding...' : 'Add credit'}
      </Button>
    </form>
  );
}
