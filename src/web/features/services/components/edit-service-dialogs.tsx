import { KEY_MASK_VISIBLE } from '@shared/constants';
import { zodResolver } from '@hookform/resolvers/zod';
import { keyLabel, messages, newKeySchema, parseProperties, serviceNameSchema } from '@shared/validation';
import { KeyRound, Pencil } from 'lucide-react';
import { useState, type ReactNode } from 'react';
import { useForm } from 'react-hook-form';
import { z } from 'zod';
import { Button } from '@/components/ui/button';
import { Dialog, type DialogControl } from '@/components/ui/dialog';
import { InputField } from '@/components/ui/form-field';
import { Spinner } from '@/components/ui/spinner';
import { serverRefusal } from '@/lib/error-text';
import { toast } from '@/lib/toast';
import { useProductProperties } from '../api/get-product-properties';
import { useServices } from '../api/get-services';
import type { Service } from '../api/types';
import { useUpdateService, type ServiceUpdates } from '../api/update-service';
import { maskKey } from '../service-status';

/** "Change key": the creation rules of the service's plan, then the server hands the new key to the node. */
export function ChangeKeyDialog({ service, control }: { service: Service; control?: DialogControl }) {
  return (
    <EditDialog
      title="Change key"
      description="The node is restarted with the new key."
      icon={<KeyRound className="size-4" aria-hidden="true" />}
      control={control}
    >
      {(done) => <ChangeKeyForm service={service} onDone={done} />}
    </EditDialog>
  );
}

/** "Rename": the creation rules for names; the node is untouched. */
export function RenameServiceDialog({ service, control }: { service: Service; control?: DialogControl }) {
  return (
    <EditDialog title="Rename" description={`Give ${service.name} a new name.`} icon={<Pencil className="size-4" aria-hidden="true" />} control={control}>
      {(done) => <RenameForm service={service} onDone={done} />}
    </EditDialog>
  );
}

function EditDialog({
  title,
  description,
  icon,
  control,
  children,
}: {
  title: string;
  description: string;
  icon: ReactNode;
  /** Opened from a menu (the service page's), with no button of its own. */
  control?: DialogControl;
  children: (done: () => void) => ReactNode;
}) {
  const [ownOpen, setOwnOpen] = useState(false);
  const open = control ? control.open : ownOpen;
  const setOpen = control ? control.onOpenChange : setOwnOpen;
  return (
    <Dialog
      open={open}
      onOpenChange={setOpen}
      title={title}
      description={description}
      // The dialog's own first focus is no visit: a field speaks only once a person has left it.
      initialFocus="dialog"
      returnFocus={control?.returnFocus}
      trigger={
        !control && (
          <Button variant="outline">
            {icon} {title}
          </Button>
        )
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
  const properties = parseProperties(props.data);
  const form = useForm<{ apiKey: string }>({
    // react-hook-form reads its options at each render, so the rules are those of the properties loaded.
    // The service's own key again is refused here, as the server refuses it: nothing would change.
    resolver: zodResolver(z.object({ apiKey: newKeySchema(properties, service.api_key) })),
    // Save waits for a valid key, so the field speaks once it has been left.
    mode: 'onTouched',
    defaultValues: { apiKey: '' },
  });
  const { errors, isValid } = form.formState;
  const { save, pending, serverError } = useSave(service, onDone);

  if (service.product_id && props.isPending) return <Spinner label="Loading the plan's key rules..." />;
  const keyName = keyLabel(properties);
  const masked = maskKey(service.api_key, KEY_MASK_VISIBLE);

  return (
    <form onSubmit={form.handleSubmit(({ apiKey: key }) => save({ api_key: key }))} noValidate className="space-y-4">
      <p className="text-sm text-muted-foreground">
        Current key: <code className="font-mono">{masked.dots + masked.tail}</code>
      </p>
      <InputField
        id="service-new-key"
        label={keyName}
        error={errors.apiKey?.message}
        autoComplete="off"
        spellCheck={false}
        placeholder={`Enter your ${keyName}`}
        {...form.register('apiKey')}
      />
      {serverError && (
        <p role="alert" className="text-sm text-destructive">
          {serverError}
        </p>
      )}
      <Button type="submit" className="w-full" disabled={!isValid || pending}>
        {pending ? 'Saving...' : 'Save key'}
      </Button>
    </form>
  );
}

function RenameForm({ service, onDone }: { service: Service; onDone: () => void }) {
  const services = useServices();
  const others = (services.data ?? []).filter((s) => s.id !== service.id).map((s) => s.name);
  const form = useForm<{ name: string }>({
    resolver: zodResolver(z.object({ name: serviceNameSchema(others) })),
    // Save waits for a valid name, so the field speaks once it has been left.
    mode: 'onTouched',
    defaultValues: { name: service.name },
  });
  const { errors, isValid, isDirty } = form.formState;
  const { save, pending, serverError } = useSave(service, onDone);
  const message = errors.name?.message;

  return (
    <form onSubmit={form.handleSubmit(({ name }) => save({ name }))} noValidate className="space-y-4">
      <InputField id="service-new-name" label="Service Name" error={message} autoComplete="off" {...form.register('name')} />
      {!message && <p className="text-xs text-muted-foreground">{messages.serviceNameHint}</p>}
      {serverError && (
        <p role="alert" className="text-sm text-destructive">
          {serverError}
        </p>
      )}
      <Button type="submit" className="w-full" disabled={!isValid || !isDirty || pending}>
        {pending ? 'Saving...' : 'Save name'}
      </Button>
    </form>
  );
}
