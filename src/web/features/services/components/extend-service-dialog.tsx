import { extendCost, extendMonthChoices, messages } from '@shared/validation';
import { MONTHLY_INTERVAL, EXTEND_QUARTER_MONTHS } from '@shared/constants';
import { CalendarPlus } from 'lucide-react';
import { useState } from 'react';
import { Button } from '@/components/ui/button';
import { Dialog, type DialogControl } from '@/components/ui/dialog';
import { FormField, invalidProps } from '@/components/ui/form-field';
import { NativeSelect } from '@/components/ui/input';
import { Spinner } from '@/components/ui/spinner';
import { Tooltip } from '@/components/ui/tooltip';
import { useFormat } from '@/lib/format';
import { toast } from '@/lib/toast';
import { useExtendService } from '../api/extend-service';
import { useCompatibleProducts } from '../api/get-compatible-products';
import type { Product, Service } from '../api/types';

type Props = { service: Service; product: Product; blocked: string | null };

/** With `control` it is opened from a menu (the service page's) and has no button of its own. */
export function ExtendServiceDialog({ control, ...props }: Props & { control?: DialogControl }) {
  const [ownOpen, setOwnOpen] = useState(false);
  const open = control ? control.open : ownOpen;
  const setOpen = control ? control.onOpenChange : setOwnOpen;
  const { service, blocked } = props;
  return (
    <>
      {!control && (
        <Tooltip content={blocked}>
          <Button variant="outline" size="sm" disabled={!!blocked} aria-label={`Extend ${service.name}`} onClick={() => setOpen(true)}>
            <CalendarPlus className="size-4" aria-hidden="true" /> Extend
          </Button>
        </Tooltip>
      )}
      <Dialog
        open={open}
        onOpenChange={setOpen}
        title={`Extend ${service.name}`}
        description="Add months to the paid period; the charge comes from your balance."
        returnFocus={control?.returnFocus}
      >
        {open && <ExtendForm {...props} onDone={() => setOpen(false)} />}
      </Dialog>
    </>
  );
}

/** Per-month price of a product: monthly as is, others (quarterly) spread over their 3 months. */
const perMonth = (p: Product) => (p.renew_interval === MONTHLY_INTERVAL ? p.price : p.price / EXTEND_QUARTER_MONTHS);
/** A product's renewal period in words (spec §3: any interval but monthly is quarterly). */
const period = (p: Product) => (p.renew_interval === MONTHLY_INTERVAL ? 'month' : `${EXTEND_QUARTER_MONTHS} months`);

function ExtendForm({ service, product, onDone }: Props & { onDone: () => void }) {
  const f = useFormat();
  const compatible = useCompatibleProducts(product.base_product_code, true);
  const extend = useExtendService();
  const [productId, setProductId] = useState(product.id);
  const [months, setMonths] = useState(1);
  // Shown once Extend Service is pressed without a product, under the field, until one is chosen.
  const [submitted, setSubmitted] = useState(false);

  if (compatible.isPending) return <Spinner label="Loading products..." />;
  if (compatible.isError)
    return (
      <p role="alert" className="text-sm text-destructive">
        Failed to load compatible products
      </p>
    );
  if (compatible.data.length === 0)
    return (
      <p role="status" className="rounded-lg border border-yellow-500 bg-yellow-50 p-3 text-sm text-yellow-900 dark:bg-yellow-950 dark:text-yellow-100">
        No compatible products are available to extend this service right now.
      </p>
    );

  const chosen = compatible.data.find((p) => p.id === productId);
  const choices = chosen ? extendMonthChoices(chosen.renew_interval) : [];
  const selectedMonths = choices.includes(months) ? months : (choices[0] ?? 1);

  const productError = submitted && !chosen ? messages.extendProductRequired : undefined;
  const submit = async () => {
    setSubmitted(true);
    if (!chosen) return;
    try {
      const result = await extend.mutateAsync({ serviceId: service.id, productId: chosen.id, months: selectedMonths });
      toast.success('Service Extended', `Service extended for ${result.months} month(s)`);
      onDone();
    } catch (e) {
      // The server's own answer (it has an SQLSTATE code) says what was wrong; a lost request does not.
      const err = e as { message?: string; details?: string; code?: string };
      if (err.message === messages.insufficientCredits) toast.error(messages.insufficientCredits, err.details);
      else toast.error(err.code && err.message ? err.message : 'Failed to extend service');
    }
  };

  return (
    <div className="space-y-4">
      <FormField id="extend-product" label="Product" error={productError}>
        <NativeSelect id="extend-product" value={productId} onChange={(e) => setProductId(e.target.value)} {...invalidProps('extend-product', productError)}>
          <option value="">Select a product</option>
          {compatible.data.map((p) => (
            <option key={p.id} value={p.id}>
              {p.name} ({f.money(p.price)})
            </option>
          ))}
        </NativeSelect>
      </FormField>
      {chosen && (
        <div className="space-y-1.5">
          <label htmlFor="extend-months" className="text-sm font-medium">
            Months
          </label>
          <NativeSelect id="extend-months" value={selectedMonths} onChange={(e) => setMonths(Number(e.target.value))}>
            {choices.map((m) => (
              <option key={m} value={m}>
                {m} {m === 1 ? 'month' : 'months'} @ {f.money(perMonth(chosen))}/month
              </option>
            ))}
          </NativeSelect>
          <p className="text-sm">
            Total: <strong>{f.money(extendCost(chosen.price, chosen.renew_interval, selectedMonths))}</strong>
          </p>
        </div>
      )}
      {/* Extending moves the service onto the chosen product, whose price and period its renewals then follow. */}
      {chosen && chosen.id !== product.id && (
        <p role="note" className="rounded-lg border border-border bg-muted p-3 text-sm">
          Your service moves to {chosen.name}: after this extension, renewals will be charged at {f.money(chosen.price)} every {period(chosen)}.
        </p>
      )}
      <Button className="w-full" disabled={extend.isPending} onClick={() => void submit()}>
        {extend.isPending ? 'Extending...' : 'Extend Service'}
      </Button>
    </div>
  );
}
