import { TOP_UP_PRESETS, TOP_UP_STEP } from '@shared/constants';
import { cryptoMessages } from '@shared/crypto-payments';
import { topUpSchema } from '@shared/validation';
import { useEffect, useRef, useState } from 'react';
import { Button } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { InputField } from '@/components/ui/form-field';
import { useAppConfig } from '@/lib/app-config';
import { useFormat } from '@/lib/format';
import { toast } from '@/lib/toast';
import { useTouchedFields } from '@/lib/use-touched-fields';
import { cn } from '@/lib/utils';
import { usePurchaseCredits } from '../api/purchase-credits';

/**
 * Presets and a custom amount, one or the other (spec §2); paying goes to the provider's approval
 * page. `requested`: an amount a link asked for (a shortfall to cover), filled in as the custom
 * amount, and the card brought into view.
 */
export function AddFundsCard({ userId, requested = null }: { userId: string; requested?: number | null }) {
  const f = useFormat();
  const [preset, setPreset] = useState<number | null>(requested === null ? TOP_UP_PRESETS[1] : null);
  const [custom, setCustom] = useState<string | null>(requested === null ? null : requested.toFixed(2));
  const card = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (requested !== null) card.current?.scrollIntoView({ block: 'center' });
  }, [requested]);
  const purchase = usePurchaseCredits();
  const { data: config } = useAppConfig();
  const [withMethod, setWith] = useState<'provider' | 'crypto'>('provider');
  const { isTouched, track } = useTouchedFields<'custom'>();

  const amount = custom !== null ? Number(custom) : preset;
  const parsed = topUpSchema.safeParse({ amount: custom !== null && custom.trim() === '' ? Number.NaN : amount });
  // Said once the amount has been left: "Minimum purchase is $1" is no answer to typing "0." on the way to "0.5".
  const error = custom !== null && isTouched('custom') && !parsed.success ? parsed.error.issues[0]?.message : undefined;

  const pay = async (crypto: boolean) => {
    if (!parsed.success) return;
    setWith(crypto ? 'crypto' : 'provider');
    try {
      const { approval_url } = await purchase.mutateAsync({ amount: parsed.data.amount, userId, crypto });
      window.location.assign(approval_url);
    } catch (e) {
      console.error('purchase-credits failed', e);
      toast.error('Failed to initiate payment');
    }
  };

  return (
    <Card ref={card} role="region" aria-labelledby="add-funds-heading">
      <h2 id="add-funds-heading" className="text-lg font-semibold">
        Add Funds
      </h2>
      <div role="group" aria-label="Preset amounts" className="mt-4 grid grid-cols-3 gap-2 sm:grid-cols-5">
        {TOP_UP_PRESETS.map((p) => (
          <Button
            key={p}
            type="button"
            variant="outline"
            aria-pressed={custom === null && preset === p}
            className={cn(custom === null && preset === p && 'border-primary bg-muted')}
            onClick={() => {
              setPreset(p);
              setCustom(null);
            }}
          >
            {f.money(p)}
          </Button>
        ))}
      </div>
      <div className="mt-4">
        <InputField
          id="custom-amount"
          label="Custom amount (USD)"
          error={error}
          type="number"
          inputMode="decimal"
          min={1}
          step={TOP_UP_STEP}
          placeholder="Enter an amount"
          wrapper={track('custom')}
          value={custom ?? ''}
          onChange={(e) => {
            setCustom(e.target.value);
            setPreset(null);
          }}
        />
      </div>
      <Button className="mt-4 w-full" disabled={!parsed.success || purchase.isPending} onClick={() => void pay(false)}>
        {purchase.isPending && withMethod === 'provider' ? 'Redirecting...' : parsed.success ? `Pay ${f.money(parsed.data.amount)}` : 'Pay'}
      </Button>
      {config?.cryptoPayments && (
        <Button variant="outline" className="mt-2 w-full" disabled={!parsed.success || purchase.isPending} onClick={() => void pay(true)}>
          {purchase.isPending && withMethod === 'crypto' ? 'Redirecting...' : cryptoMessages.payWithCrypto}
        </Button>
      )}
    </Card>
  );
}
