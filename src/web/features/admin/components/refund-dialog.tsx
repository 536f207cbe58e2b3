import { REFUND_REASON_MAX } from '@shared/constants';
import { refundErrors } from '@shared/validation';
import { useState } from 'react';
import { Button } from '@/components/ui/button';
import { Dialog } from '@/components/ui/dialog';
import { FormField, InputField, invalidProps } from '@/components/ui/form-field';
import { Textarea } from '@/components/ui/input';
import { useFormat } from '@/lib/format';
import { toast } from '@/lib/toast';
import { useTouchedFields } from '@/lib/use-touched-fields';
import { useRefundPurchase, type RefundOutcome } from '../api/refund-purchase';
import type { UserPurchase } from '../api/get-user-purchases';

/** The reason goes to the audit log and, when the refund leaves the balance below zero, to the customer's dashboard (migration 0050). */
const REASON_LABEL = 'Reason (optional, for the audit log and the customer)';

/** What the balance will be once the refund is booked; below zero, said as a warning with what it means for the customer. */
function BalanceAfter({ after }: { after: number }) {
  const f = useFormat();
  if (after >= 0) return <p className="text-sm">After the refund, the balance will be {f.money(after)}.</p>;
  return (
    <p role="status" className="rounded-md border border-destructive/40 p-3 text-sm">
      <span className="font-medium text-destructive">The balance will be {f.money(after)}.</span> The customer has spent part of this credit: their services
      stop renewing until they add funds, and their dashboard shows them this refund and your reason.
    </p>
  );
}

/** What the provider did with a refund of `amount`, as a toast. */
function announce(done: RefundOutcome, amount: string) {
  if (done.status === 'completed') toast.success('Refund made', `${amount} refunded. Credit note ${done.credit_note ?? ''} issued.`);
  else toast.success('Refund requested', `The provider is processing the refund of ${amount}; it is booked when the provider confirms it.`);
}

/**
 * Admin › a purchase row › Ask again: a refund the provider did not answer may have been made.
 * Asking again sends the same request, which the provider makes at most once.
 */
export function RetryRefundButton({ userId, purchase, amount }: { userId: string; purchase: UserPurchase; amount: number }) {
  const f = useFormat();
  const refund = useRefundPurchase(userId);
  const retry = async () => {
    try {
      announce(await refund.mutateAsync({ purchase_id: purchase.id, amount }), f.money(amount));
    } catch (e) {
      toast.error('Refund failed', e instanceof Error ? e.message : undefined);
    }
  };
  return (
    <Button
      variant="outline"
      size="sm"
      disabled={refund.isPending}
      aria-label={`Ask the provider again about the unanswered refund of ${f.money(amount)}`}
      onClick={() => void retry()}
    >
      {refund.isPending ? 'Asking...' : 'Ask again'}
    </Button>
  );
}

/**
 * Admin › a purchase row › Refund: all or part of what is left, through the provider it was paid
 * with. `balance` is the customer's now: the dialog says what the refund leaves, and warns before a
 * refund takes back credit already spent.
 */
export function RefundDialog({ userId, purchase, balance }: { userId: string; purchase: UserPurchase; balance: number }) {
  const f = useFormat();
  const [open, setOpen] = useState(false);
  const label = `${f.money(purchase.amount)} of ${f.dateTime(purchase.created_at)}`;
  return (
    <Dialog
      open={open}
      onOpenChange={setOpen}
      title="Refund purchase"
      description={`Refund the purchase of ${label}. The money goes back through ${purchase.provider === 'paypal' ? 'PayPal' : 'the test provider'}, the same amount is taken from the balance, and the customer receives a credit note.`}
      trigger={
        <Button variant="outline" size="sm" aria-label={`Refund the purchase of ${label}`}>
          Refund
        </Button>
      }
    >
      {open && <RefundForm userId={userId} purchase={purchase} balance={balance} onDone={() => setOpen(false)} />}
    </Dialog>
  );
}

function RefundForm({ userId, purchase, balance, onDone }: { userId: string; purchase: UserPurchase; balance: number; onDone: () => void }) {
  const f = useFormat();
  const refund = useRefundPurchase(userId);
  const [amount, setAmount] = useState(purchase.refundable.toFixed(2));
  const [reason, setReason] = useState('');
  const { isTouched, track } = useTouchedFields<'amount' | 'reason'>();
  const value = amount.trim() === '' ? Number.NaN : Number(amount);
  const problems = refundErrors(value, reason, purchase.refundable);
  const shown = (field: 'amount' | 'reason') => (isTouched(field) && problems[field]) || undefined;
  const valid = !problems.amount && !problems.reason;

  const submit = async () => {
    try {
      announce(await refund.mutateAsync({ purchase_id: purchase.id, amount: value, reason: reason.trim() }), f.money(value));
      onDone();
    } catch (e) {
      toast.error('Refund failed', e instanceof Error ? e.message : undefined);
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
        id="refund-amount"
        label={`Amount (USD), at most ${f.money(purchase.refundable)}`}
        error={shown('amount')}
        type="number"
        min={0.01}
        max={purchase.refundable}
        step={0.01}
        value={amount}
        wrapper={track('amount')}
        onChange={(e) => setAmount(e.target.value)}
      />
      {!problems.amount && <BalanceAfter after={Math.round((balance - value) * 100) / 100} />}
      <FormField id="refund-reason" label={REASON_LABEL} error={shown('reason')} wrapper={track('reason')}>
        <Textarea
          id="refund-reason"
          maxLength={REFUND_REASON_MAX}
          className="min-h-20"
          value={reason}
          onChange={(e) => setReason(e.target.value)}
          {...invalidProps('refund-reason', shown('reason'))}
        />
      </FormField>
      <Button type="submit" variant="destructive" className="w-full" disabled={!valid || refund.isPending}>
        {refund.isPending ? 'Refunding...' : 'Refund'}
      </Button>
    </form>
  );
}
