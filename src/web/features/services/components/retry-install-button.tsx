import { INSTALL_MINUTES } from '@shared/constants';
import { failedInstallTexts } from '@shared/failed-install';
import { messages } from '@shared/validation';
import { RotateCcw } from 'lucide-react';
import { useState } from 'react';
import { Link } from 'react-router';
import { Button } from '@/components/ui/button';
import { Dialog } from '@/components/ui/dialog';
import { paths } from '@/config/paths';
import { useBalance } from '@/lib/balance';
import { serverRefusal } from '@/lib/error-text';
import { useFormat } from '@/lib/format';
import { toast } from '@/lib/toast';
import { topUpFor } from '@/lib/top-up';
import { useRetryServiceInstallation } from '../api/retry-service-installation';
import type { Service } from '../api/types';

type Props = {
  service: Pick<Service, 'id' | 'name'>;
  onRetried?: () => void;
  /**
   * The owner's retry of an installation whose charge came back: it buys the period again, so it
   * asks first, with the price and the balance. Absent: the retry is free and needs no asking.
   */
  charge?: { price: number; userId: string };
};

/**
 * Retry on a service whose installation failed: back to Installing. The owner's card and page and
 * the admin's fleet show it; `onRetried` lets a caller with its own list refresh it.
 */
export function RetryInstallButton({ service, onRetried, charge }: Props) {
  const retry = useRetryServiceInstallation();
  const [confirming, setConfirming] = useState(false);
  // The server's refusal of a confirmed retry (too little credit): said in the dialog, beside the way to add funds.
  const [refusal, setRefusal] = useState<{ message: string; details?: string } | null>(null);

  const act = async () => {
    setRefusal(null);
    try {
      await retry.mutateAsync({ serviceId: service.id, ...(charge ? { charge: charge.price } : {}) });
      setConfirming(false);
      onRetried?.();
      toast.success('Installation restarted', `${service.name} is being set up again. This takes up to ${INSTALL_MINUTES} minutes.`);
    } catch (e) {
      const err = e as { message?: string; details?: string | null };
      if (charge && err.message === messages.insufficientCredits) setRefusal({ message: err.message, ...(err.details ? { details: err.details } : {}) });
      else {
        setConfirming(false);
        toast.error(serverRefusal(e) ?? 'Failed to retry the installation');
      }
    }
  };

  return (
    <>
      <Button
        variant="outline"
        size="sm"
        disabled={retry.isPending}
        aria-label={`Retry ${service.name}`}
        onClick={() => (charge ? setConfirming(true) : void act())}
      >
        <RotateCcw className="size-4" aria-hidden="true" /> {retry.isPending && !confirming ? failedInstallTexts.retrying : 'Retry'}
      </Button>
      {charge && (
        <ConfirmRetry
          open={confirming}
          onOpenChange={(open) => {
            if (retry.isPending) return;
            setConfirming(open);
            setRefusal(null);
          }}
          name={service.name}
          charge={charge}
          pending={retry.isPending}
          refusal={refusal}
          onConfirm={() => void act()}
        />
      )}
    </>
  );
}

function ConfirmRetry({
  open,
  onOpenChange,
  name,
  charge,
  pending,
  refusal,
  onConfirm,
}: {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  name: string;
  charge: { price: number; userId: string };
  pending: boolean;
  refusal: { message: string; details?: string } | null;
  onConfirm: () => void;
}) {
  const f = useFormat();
  const balance = useBalance(charge.userId);
  const price = f.money(charge.price);
  // Billing with what is missing filled in, once the balance is known.
  const missing = balance.data === undefined ? null : topUpFor(charge.price - balance.data);
  return (
    <Dialog open={open} onOpenChange={onOpenChange} title={failedInstallTexts.retryTitle(name)} description={failedInstallTexts.retryDescription(price)}>
      <div className="space-y-4">
        {balance.data !== undefined && <p className="text-sm">Your balance: {f.money(balance.data)}</p>}
        {refusal && (
          <div role="alert" className="space-y-2 rounded-md border border-destructive/40 p-3 text-sm">
            <p>
              <span className="font-medium text-destructive">{refusal.message}.</span> {refusal.details}
            </p>
            <Link
              to={missing === null ? paths.dashboardBilling : paths.dashboardBillingAddFunds(missing)}
              className="font-medium text-primary underline-offset-4 hover:underline"
            >
              {failedInstallTexts.addFunds}
            </Link>
          </div>
        )}
        <div className="flex justify-end gap-2">
          <Button variant="outline" disabled={pending} onClick={() => onOpenChange(false)}>
            Cancel
          </Button>
          <Button disabled={pending} onClick={onConfirm}>
            {pending ? failedInstallTexts.retrying : failedInstallTexts.retryConfirm(price)}
          </Button>
        </div>
      </div>
    </Dialog>
  );
}

/** In an admin's list, in place of Retry: the installation's charge went back to its owner, and only they can buy it again. */
export function RetryLeftToOwner() {
  return <span className="self-center text-xs text-muted-foreground">Refunded: only its owner can retry</span>;
}
