import { PAYMENT_APPROVAL_HOURS } from '@shared/constants';
import { useEffect, useRef } from 'react';
import { useSearchParams } from 'react-router';
import { getPurchaseAmount } from '@/features/billing/api/get-purchase-amount';
import { AddFundsCard } from '@/features/billing/components/add-funds-card';
import { BalanceCard } from '@/features/billing/components/balance-card';
import { PurchaseHistory } from '@/features/billing/components/purchase-history';
import { StatementsCard } from '@/features/billing/components/statements-card';
import type { SignedInUser } from '@/lib/signed-in-user';
import { UnusedServicesTable } from '@/features/services/components/unused-services-table';
import { useFormat, type Formatters } from '@/lib/format';
import { toast } from '@/lib/toast';
import { requestedTopUp } from '@/lib/top-up';

/** Spec §8's "Payment Processed", with the amount the purchase added, read from the purchase itself rather than the address bar. */
async function announcePayment(purchaseId: string | null, f: Formatters): Promise<void> {
  const amount = purchaseId ? await getPurchaseAmount(purchaseId).catch(() => null) : null;
  toast.success('Payment Processed', amount === null ? 'Your balance has been updated.' : `${f.money(amount)} was added to your balance.`);
}

/** The provider sends the browser back with ?payment=success|pending|cancelled|failed (and &purchase= on success). */
const PAYMENT_RETURN: Record<string, (purchaseId: string | null, f: Formatters) => void> = {
  success: (purchaseId, f) => void announcePayment(purchaseId, f),
  pending: () =>
    toast.warning(
      'Payment pending',
      `The provider has not approved it yet. It reaches your balance once approved, which may take up to ${PAYMENT_APPROVAL_HOURS} hours.`,
    ),
  cancelled: () => toast.warning('Payment cancelled', 'No money was taken.'),
  failed: () => toast.error('Payment failed', 'The payment could not be completed. No money was taken.'),
};

export function BillingPage({ user }: { user: SignedInUser }) {
  const f = useFormat();
  const [params, setParams] = useSearchParams();
  const payment = params.get('payment');
  const purchaseId = params.get('purchase');
  // The return being announced: the formatters change when the profile's preferences load, which
  // can run this effect again before the address bar has lost ?payment.
  const announced = useRef<string | null>(null);
  useEffect(() => {
    if (!payment) {
      announced.current = null;
      return;
    }
    const key = `${payment} ${purchaseId ?? ''}`;
    if (announced.current === key) return;
    announced.current = key;
    PAYMENT_RETURN[payment]?.(purchaseId, f);
    // Shown once: a reload must not repeat it.
    setParams(
      (p) => {
        p.delete('payment');
        p.delete('purchase');
        return p;
      },
      { replace: true },
    );
  }, [payment, purchaseId, f, setParams]);

  return (
    <div className="grid grid-cols-1 gap-6 lg:grid-cols-2">
      <BalanceCard userId={user.id} />
      {/* ?amount= is a shortfall a link asks to cover (a suspended service, a negative balance). */}
      <AddFundsCard key={params.get('amount') ?? ''} userId={user.id} requested={requestedTopUp(params.get('amount'))} />
      <div className="lg:col-span-2">
        <PurchaseHistory userId={user.id} />
      </div>
      <div className="lg:col-span-2">
        <StatementsCard userId={user.id} />
      </div>
      <div className="lg:col-span-2">
        <UnusedServicesTable userId={user.id} />
      </div>
    </div>
  );
}
