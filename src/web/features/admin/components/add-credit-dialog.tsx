import { useState } from 'react';
import { Button } from '@/components/ui/button';
import { Dialog } from '@/components/ui/dialog';
import { FormField, InputField } from '@/components/ui/form-field';
import { Textarea } from '@/components/ui/input';
import { useFormat } from '@/lib/format';
import { toast } from '@/lib/toast';
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
  const value = Number(amount);
  const amountError = amount !== '' && !(value > 0 && Math.round(value * 100) === value * 100) ? 'Enter a positive amount with at most two decimals' : undefined;
  const valid = amount !== '' && !amountError && note.trim() !== '';

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
      <InputField id="credit-amount" label="Amount (USD)" error={amountError} type="number" min={0.01} step={0.01} value={amount} onChange={(e) => setAmount(e.target.value)} />
      <FormField id="credit-note" label="Note">
        <Textarea id="credit-note" maxLength={500} className="min-h-20" value={note} onChange={(e) => setNote(e.target.value)} />
      </FormField>
      <Button type="submit" className="w-full" disabled={!valid || add.isPending}>
        {add.isPending ? 'Adding...' : 'Add credit'}
      </Button>
    </form>
  );
}
