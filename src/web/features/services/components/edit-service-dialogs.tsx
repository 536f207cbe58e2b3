import { KEY_MASK_VISIBLE } from '@shared/constants';
import { apiKeyError, keyLabel, keyNoun, messages, parseProperties, serviceNameError } from '@shared/validation';
import { KeyRound, Pencil } from 'lucide-react';
import { useState, type ReactNode } from 'react';
import { useForm, useWatch } from 'react-hook-form';
import { Button } from '@/components/ui/button';
import { Dialog } from '@/components/ui/dialog';
import { InputField } from '@/components/ui/form-field';
import { Spinner } from '@/components/ui/spinner';
import { serverRefusal } from '@/lib/error-text';
import { toast } from '@/lib/toast';
import { useTouchedFields } from '@/lib/use-touched-fields';
import { useProductProperties } from '../api/get-product-properties';
import { useServices } from '../api/get-services';
import type { Service } from '../api/types';
import { useUpdateService, type ServiceUpdates } from '../api/update-service';
import { maskKey } from '../service-status';

/** "Change key": the creation rules of the service's plan, then the server hands the new key to the node. */
export function ChangeKeyDialog({ service }: { service: Service }) {
  return (
    <EditDialog title="Change key" description="The node is restarted with the new key." icon={<KeyRound className="size-4" aria-hidden="true" />}>
      {(done) => <ChangeKeyForm service={service} onDone={done} />}
    </EditDialog>
  );
}

/** "Rename": the creation rules for names; the node is untouched. */
export function RenameServiceDialog({ service }: { service: Service }) {
  return (
    <EditDialog title="Rename" description={`Give ${service.name} a new name.`} icon={<Pencil className="size-4" aria-hidden="true" />}>
      {(done) => <RenameForm service={service} onDone={done} />}
    </EditDialog>
  );
}

function EditDialog({
  title,
  description,
  icon,
  children,
}: {
  title: string;
  description: string;
  icon: ReactNode;
  children: (done: () => void) => ReactNode;
}) {
  const [open, setOpen] = useState(false);
  return (
    <Dialog
      open={open}
      onOpenChange={setOpen}
      title={title}
      description={description}
      trigger={
        <Button variant="outline">
          {icon} {title}
        </Button>
      }
    >
      {/* Mounted only while open, so each opening starts from an empty form. */}
      {open && children(() => setOpen(false))}
    </Dialog>
  );
}

/** Saves, toasts, and shows the server's refusal. */
function useSave(service: Service, onDone: () => void) {
  const update = useUpdateService();
  const [serverError, setServerError] = useState<string | null>(null);
  const save = async (updates: ServiceUpdates) => {
    setServerError(null);
    try {
      await update.mutateAsync({ serviceId: service.id, updates });
      toast.success('Service updated successfully.');
      onDone();
    } catch (e) {
      const err = e as { details?: unknown };
      const message = serverRefusal(e);
      // A refused key names the broken rule in its details ("API key must end with ...").
      const details = typeof err.details === 'string' && err.details ? err.details : undefined;
      setServerError(message && details ? `${message}: ${details}` : message);
      toast.error(message ?? 'Failed to update service', message ? details : undefined);
    }
  };
  return { save, pending: update.isPending, serverError };
}

function ChangeKeyForm({ service, onDone }: { service: Service; onDone: () => void }) {
  const props = useProductProperties(service.product_id);
  const form = useForm<{ apiKey: string }>({ defaultValues: { apiKey: '' } });
  const apiKey = useWatch({ control: form.control, name: 'apiKey' });
  const { isTouched, track } = useTouchedFields<'apiKey'>();
  const { save, pending, serverError } = useSave(service, onDone);

  if (service.product_id && props.isPending) return <Spinner label="Loading the plan's key rules..." />;
  const properties = parseProperties(props.data);
  const keyName = keyLabel(properties);
  const problem = apiKey === '' ? messages.apiKeyRequired(keyNoun(properties)) : apiKeyError(apiKey, properties);
  const masked = maskKey(service.api_key, KEY_MASK_VISIBLE);

  return (
    <form onSubmit={form.handleSubmit(({ apiKey: key }) => (problem ? undefined : save({ api_key: key })))} noValidate className="space-y-4">
      <p className="text-sm text-muted-foreground">
        Current key: <code className="font-mono">{masked.dots + masked.tail}</code>
      </p>
      <InputField
        id="service-new-key"
        label={keyName}
        // Save waits for a valid key, so the field speaks once it has been left.
        error={isTouched('apiKey') ? (problem ?? undefined) : undefined}
        autoComplete="off"
        spellCheck={false}
        placeholder={`Enter your ${keyName}`}
        wrapper={track('apiKey')}
        {...form.register('apiKey')}
      />
      {serverError && (
        <p role="alert" className="text-sm text-destructive">
          {serverError}
        </p>
      )}
      <Button type="submit" className="w-full" disabled={!!problem || pending}>
        {pending ? 'Saving...' : 'Save key'}
      </Button>
    </form>
  );
}

function RenameForm({ service, onDone }: { service: Service; onDone: () => void }) {
  const services = useServices();
  const form = useForm<{ name: string }>({ defaultValues: { name: service.name } });
  const name = useWatch({ control: form.control, name: 'name' });
  const { isTouched, track } = useTouchedFields<'name'>();
  const { save, pending, serverError } = useSave(service, onDone);
  const others = (services.data ?? []).filter((s) => s.id !== service.id).map((s) => s.name.toLowerCase());
  const problem =
    name.trim() === '' ? messages.serviceNameRequired : (serviceNameError(name) ?? (others.includes(name.toLowerCase()) ? messages.serviceNameTaken : null));
  // Save waits for a valid name, so the field speaks once it has been left.
  const message = isTouched('name') ? problem : null;

  return (
    <form onSubmit={form.handleSubmit(({ name: n }) => (problem ? undefined : save({ name: n })))} noValidate className="space-y-4">
      <InputField
        id="service-new-name"
        label="Service Name"
        error={message ?? undefined}
        autoComplete="off"
        wrapper={track('name')}
        {...form.register('name')}
      />
      {!message && <p className="text-xs text-muted-foreground">{messages.serviceNameHint}</p>}
      {serverError && (
        <p role="alert" className="text-sm text-destructive">
          {serverError}
        </p>
      )}
      <Button type="submit" className="w-full" disabled={!!problem || name === service.name || pending}>
        {pending ? 'Saving...' : 'Save name'}
      </Button>
    </form>
  );
}
