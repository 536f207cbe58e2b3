import { PAYMENT_APPROVAL_HOURS, PAYMENT_CREDIT_SECONDS, PAYMENT_REFUND_DAYS } from '@shared/constants';
import { Info } from 'lucide-react';
import { Button } from '@/components/ui/button';
import { Dialog } from '@/components/ui/dialog';

export function PaymentInfoDialog() {
  return (
    <Dialog
      title="Payment processing"
      description="How long a payment takes to reach your balance."
      trigger={
        <Button variant="ghost" size="sm">
          <Info className="size-4" aria-hidden="true" /> Payment processing info
        </Button>
      }
    >
      <ul className="list-disc space-y-2 pl-5 text-sm">
        <li>Approved payments reach your balance within {PAYMENT_CREDIT_SECONDS} seconds.</li>
        <li>The payment provider may take up to {PAYMENT_APPROVAL_HOURS} hours to approve a payment.</li>
        <li>Rejected payments are refunded within {PAYMENT_REFUND_DAYS} days.</li>
        <li>If a payment is still pending after {PAYMENT_APPROVAL_HOURS} hours, please contact support.</li>
        <li>Funds never expire.</li>
      </ul>
    </Dialog>
  );
}
