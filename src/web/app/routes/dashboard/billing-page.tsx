import { useEffect } from 'react';
import { useSearchParams } from 'react-router';
import { AddFundsCard } from '@/features/billing/components/add-funds-card';
import { BalanceCard } from '@/features/billing/components/balance-card';
import { PurchaseHistory } from '@/features/billing/components/purchase-history';
import type { SignedInUser } from '@/features/dashboard/signed-in-user';
import { UnusedServicesTable } from '@/features/services/components/unused-services-table';
import { toast } from '@/lib/toast';

/** The provider sends the browser back with ?payment=success|cancelled|failed. */
const PAYMENT_RETURN: Record<string, () => void> = {
  success: () => toast.success('Payment received', 'Your balance is updated as soon as the provider confirms the payment.'),
  cancelled: () => toast.warning('Payment cancelled', 'No money was taken.'),
  failed: () => toast.error('Payment failed', 'The payment could not be completed. No money was taken.'),
};

export function BillingPage({ user }: { user: SignedInUser }) {
  const [params, setParams] = useSearchParams();
  const payment = params.get('payment');
  useEffect(() => {
    if (!payment) return;
    PAYMENT_RETURN[payment]?.();
    // Shown once: a reload must not repeat it.
    setParams((p) => {
      p.delete('payment');
      return p;
    }, { replace: true });
  }, [payment, setParams]);

  return (
    <div className="grid grid-cols-1 gap-6 lg:grid-cols-2">
      <BalanceCard userId={user.id} />
      <AddFundsCard userId={user.id} />
      <div className="lg:col-span-2">
        <PurchaseHistory userId={user.id} />
      </div>
      <div className="lg:col-span-2">
        <UnusedServicesTable userId={user.id} />
      </div>
    </div>
  );
}
