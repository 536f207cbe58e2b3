import { zodResolver } from '@hookform/resolvers/zod';
import { canFund, createServiceSchema, keyLabel, messages, parseProperties, type CreateServiceValues } from '@shared/validation';
import { AlertTriangle, Plus } from 'lucide-react';
import { useState } from 'react';
import { useForm, useWatch } from 'react-hook-form';
import { Link } from 'react-router';
import { Button } from '@/components/ui/button';
import { Dialog } from '@/components/ui/dialog';
import { FormField, InputField, invalidProps } from '@/components/ui/form-field';
import { Input } from '@/components/ui/input';
import { Spinner } from '@/components/ui/spinner';
import { paths } from '@/config/paths';
import { useFormat } from '@/lib/format';
import { toast } from '@/lib/toast';
import { cn } from '@/lib/utils';
import { serverRefusal } from '@/lib/error-text';
import { useCreateService } from '../api/create-service';
import { useProducts } from '../api/get-products';
import { useUnusedServices } from '../api/get-unused-services';
import { notifyServiceEvent } from '../api/notify-service-event';
import { intervalLabel, PAID_FROM_FIRST_RUN } from '../service-status';

type Props = { user: { id: string; email: string }; balance: number | undefined; existingNames: readonly string[] };

/**
 * The New Service dialog: each field shows its most specific message once it has been left, a
 * shortfall is one alert, and submit waits for the spec §5 checks.
 */
export function CreateServiceDialog(props: Props) {
  const [open, setOpen] = useState(false);
  return (
    <Dialog
      open={open}
      onOpenChange={setOpen}
      title="Create New Service"
      description="Choose a plan, name your node and give its key."
      // The dialog's own first focus is no visit: choosing a plan must not make an untouched name speak.
      initialFocus="dialog"
      trigger={
        <Button>
          <Plus className="size-4" aria-hidden="true" /> New Service
        </Button>
      }
    >
      {/* Mounted only while open, so each opening starts from an empty form. */}
      {open && <CreateServiceForm {...props} onDone={() => setOpen(false)} />}
    </Dialog>
  );
}

function CreateServiceForm({ user, balance, existingNames, onDone }: Props & { onDone: () => void }) {
  const f = useFormat();
  const products = useProducts();
  const unused = useUnusedServices(user.id);
  const create = useCreateService();
  const propertiesOf = (productId: string) => parseProperties(products.data?.find((p) => p.id === productId)?.properties);
  const form = useForm<CreateServiceValues>({
    // The key's rules are the chosen plan's, so each check uses the schema of the plan it sees.
    resolver: (values, context, options) =>
      zodResolver(createServiceSchema({ properties: propertiesOf(values.productId), existingNames }))(values, context, options),
    // A field speaks once it has been left. Submit waits for every check (spec §5), so no
    // submission can be what makes one speak.
    mode: 'onTouched',
    defaultValues: { name: '', productId: '', apiKey: '' },
  });
  const { errors, isValid } = form.formState;
  const productId = useWatch({ control: form.control, name: 'productId' });
  const [serverError, setServerError] = useState<string | null>(null);

  const product = products.data?.find((p) => p.id === productId);
  const keyName = keyLabel(parseProperties(product?.properties));
  const price = product?.price ?? 0;
  const reusableAvailable = !!unused.data?.some((s) => s.product_id === productId);
  const funded = canFund({ price, balance: balance ?? 0, reusableAvailable });
  const shortfall = product && balance !== undefined && !funded ? price - balance : 0;
  // A key already left is checked again under the rules of the plan chosen since.
  const recheckKey = () => void (form.getFieldState('apiKey').isTouched && form.trigger('apiKey'));
  const nameMessage = errors.name?.message;
  const planMessage = errors.productId?.message;

  const onSubmit = form.handleSubmit(async ({ name, apiKey, productId }) => {
    if (!funded) return;
    setServerError(null);
    try {
      const created = await create.mutateAsync({ name, apiKey, productId });
      if (created.reused) toast.success('Service Reactivated', `${created.name} reuses a purchased service: no charge.`);
      else toast.success('Service Created', 'Your new service has been created successfully.');
      void notifyServiceEvent(created, user.email, 'service_created');
      onDone();
    } catch (e) {
      // The server's own refusal names the broken rule.
      setServerError(serverRefusal(e));
      toast.error('Error', 'Failed to create service');
    }
  });

  if (products.isPending) return <Spinner label="Loading service plans..." />;
  if (products.isError)
    return (
      <p role="alert" className="text-sm text-destructive">
        Failed to load service plans. Please try again later.
      </p>
    );

  return (
    <form onSubmit={onSubmit} noValidate className="space-y-4">
      <FormField id="service-name" label="Service Name" error={nameMessage}>
        <Input
          id="service-name"
          autoComplete="off"
          placeholder="my-node"
          aria-describedby={nameMessage ? 'service-name-error' : 'service-name-hint'}
          {...form.register('name')}
          {...invalidProps('service-name', nameMessage)}
        />
        {!nameMessage && (
          <p id="service-name-hint" className="text-xs text-muted-foreground">
            {messages.serviceNameHint}
          </p>
        )}
      </FormField>

      <fieldset className="space-y-2" aria-describedby={planMessage ? 'service-plan-error service-paid-period' : 'service-paid-period'}>
        <legend className="text-sm font-medium">Service Plan</legend>
        {products.data.map((p) => (
          <label
            key={p.id}
            className={cn('flex cursor-pointer items-start gap-3 rounded-lg border border-border p-3 has-[:checked]:border-primary has-[:checked]:bg-muted')}
          >
            <input type="radio" value={p.id} className="mt-1" {...form.register('productId', { onChange: recheckKey })} />
            <span className="flex-1">
              <span className="flex justify-between gap-2 font-medium">
                <span>{p.name}</span>
                <span>
                  {f.money(p.price)}
                  {p.renew_interval ? ` / ${intervalLabel(p.renew_interval)}` : ' one-time'}
                </span>
              </span>
              {p.description && <span className="block text-xs text-muted-foreground">{p.description}</span>}
            </span>
          </label>
        ))}
        {planMessage && (
          <p id="service-plan-error" className="text-sm text-destructive">
            {planMessage}
          </p>
        )}
        <p id="service-paid-period" className="text-xs text-muted-foreground">
          {PAID_FROM_FIRST_RUN}
        </p>
      </fieldset>

      <InputField
        id="service-key"
        label={keyName}
        error={errors.apiKey?.message}
        autoComplete="off"
        spellCheck={false}
        placeholder={`Enter your ${keyName}`}
        {...form.register('apiKey')}
      />

      {shortfall > 0 && (
        <div
          role="alert"
          className="flex gap-2 rounded-lg border border-yellow-500 bg-yellow-50 p-3 text-sm text-yellow-900 dark:bg-yellow-950 dark:text-yellow-100"
        >
          <AlertTriangle className="mt-0.5 size-4 shrink-0" aria-hidden="true" />
          {/* One sentence: the spec's submit message for it (step 7) is the server's, when a race gets there. */}
          <p>
            You need {f.money(shortfall)} more to create this service:{' '}
            <Link to={paths.dashboardBilling} className="font-medium underline underline-offset-2">
              add funds on the Billing page
            </Link>
            .
          </p>
        </div>
      )}
      {reusableAvailable && <p className="text-sm text-muted-foreground">You have an unused purchased service of this plan: it will be reused at no charge.</p>}

      {serverError && (
        <p role="alert" className="text-sm text-destructive">
          {serverError}
        </p>
      )}

      <Button type="submit" className="w-full" disabled={!isValid || !funded || create.isPending}>
        {create.isPending ? 'Creating...' : 'Create Service'}
      </Button>
    </form>
  );
}
