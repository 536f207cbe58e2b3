import {
  API_SCOPE_LABELS,
  API_SCOPES,
  API_TOKEN_EXPIRY_DAYS,
  API_TOKEN_NAME_MAX,
  MAX_ALLOWED_IPS,
  allowedIpEntries,
  createApiTokenSchema,
  type ApiScope,
  type CreateApiToken,
} from '@shared/api-tokens';
import { Copy } from 'lucide-react';
import { useState } from 'react';
import { Button } from '@/components/ui/button';
import { Dialog } from '@/components/ui/dialog';
import { FormField, InputField, keepFocusOnPress } from '@/components/ui/form-field';
import { NativeSelect, Textarea } from '@/components/ui/input';
import { toast } from '@/lib/toast';
import { useTouchedFields } from '@/lib/use-touched-fields';
import { useCreateApiToken } from '../api/create-api-token';

type Field = 'name' | 'scopes' | 'expiresInDays' | 'allowedIps';

const expiryLabel = (days: number | null) => (days === null ? 'No expiry' : days === 365 ? '1 year' : `${days} days`);

/** Settings › API tokens › Create token: the form, then the secret, shown this once. */
export function CreateTokenDialog({ disabled }: { disabled: boolean }) {
  const [open, setOpen] = useState(false);
  const [secret, setSecret] = useState<string | null>(null);
  const onOpenChange = (next: boolean) => {
    setOpen(next);
    // Closed, the secret is gone from the page: nothing shows it again.
    if (!next) setSecret(null);
  };
  return (
    <Dialog
      open={open}
      onOpenChange={onOpenChange}
      title={secret ? 'Your new API token' : 'Create API token'}
      description={secret ? undefined : 'The token acts as you, within the scopes you choose.'}
      trigger={
        <Button size="sm" disabled={disabled}>
          Create token
        </Button>
      }
    >
      {open && (secret ? <SecretOnce secret={secret} onDone={() => onOpenChange(false)} /> : <CreateTokenForm onCreated={setSecret} />)}
    </Dialog>
  );
}

function CreateTokenForm({ onCreated }: { onCreated: (token: string) => void }) {
  const create = useCreateApiToken();
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<ApiScope[]>([]);
  const [expiry, setExpiry] = useState('30');
  const [ips, setIps] = useState('');
  const [submitted, setSubmitted] = useState(false);
  const { isTouched, track } = useTouchedFields<Field>();

  const input: CreateApiToken = {
    name,
    scopes,
    expiresInDays: (expiry === 'never' ? null : Number(expiry)) as CreateApiToken['expiresInDays'],
    allowedIps: allowedIpEntries(ips),
  };
  const parsed = createApiTokenSchema.safeParse(input);
  const problems: Partial<Record<Field, string>> = {};
  for (const issue of parsed.success ? [] : parsed.error.issues) problems[issue.path[0] as Field] ??= issue.message;
  // A field speaks once it has been left, and every field once Create has been pressed.
  const shown = (field: Field) => ((submitted || isTouched(field)) && problems[field]) || undefined;

  const submit = async () => {
    try {
      const made = await create.mutateAsync(input);
      onCreated(made.token);
    } catch {
      // The server's reason stays in the form (create.error), beside what was typed.
    }
  };
  const toggle = (scope: ApiScope, on: boolean) => setScopes((s) => (on ? [...s, scope] : s.filter((x) => x !== scope)));
  const scopesError = shown('scopes');

  return (
    <form
      className="space-y-4"
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        setSubmitted(true);
        if (parsed.success) void submit();
      }}
    >
      <InputField
        id="api-token-name"
        label="Name"
        autoComplete="off"
        placeholder="Deploy script"
        maxLength={API_TOKEN_NAME_MAX}
        error={shown('name')}
        value={name}
        wrapper={track('name')}
        onChange={(e) => setName(e.target.value)}
      />
      <fieldset className="space-y-2" {...track('scopes')} aria-describedby={scopesError ? 'api-token-scopes-error' : undefined}>
        <legend className="text-sm font-medium">Scopes</legend>
        {API_SCOPES.map((scope) => (
          <label key={scope} className="flex items-start gap-2 text-sm">
            <input type="checkbox" className="mt-0.5 size-4 shrink-0" checked={scopes.includes(scope)} onChange={(e) => toggle(scope, e.target.checked)} />
            <span>
              <code className="font-mono">{scope}</code>
              <span className="block text-muted-foreground">{API_SCOPE_LABELS[scope]}</span>
            </span>
          </label>
        ))}
        {scopesError && (
          <p id="api-token-scopes-error" className="text-sm text-destructive">
            {scopesError}
          </p>
        )}
      </fieldset>
      <FormField id="api-token-expiry" label="Expires after" error={shown('expiresInDays')}>
        <NativeSelect id="api-token-expiry" value={expiry} onChange={(e) => setExpiry(e.target.value)}>
          {API_TOKEN_EXPIRY_DAYS.map((days) => (
            <option key={String(days)} value={days === null ? 'never' : String(days)}>
              {expiryLabel(days)}
            </option>
          ))}
        </NativeSelect>
      </FormField>
      <FormField id="api-token-ips" label="Allowed addresses (optional)" error={shown('allowedIps')} wrapper={track('allowedIps')}>
        <p id="api-token-ips-hint" className="text-sm text-muted-foreground">
          Up to {MAX_ALLOWED_IPS} IPv4 or IPv6 addresses or CIDR ranges, one a line. Leave empty to allow any address.
        </p>
        <Textarea
          id="api-token-ips"
          rows={3}
          placeholder={'203.0.113.7\n2001:db8::/32'}
          className="font-mono"
          value={ips}
          onChange={(e) => setIps(e.target.value)}
          aria-invalid={shown('allowedIps') ? true : undefined}
          aria-describedby={shown('allowedIps') ? 'api-token-ips-hint api-token-ips-error' : 'api-token-ips-hint'}
        />
      </FormField>
      {create.error && (
        <p role="alert" className="text-sm text-destructive">
          {create.error.message}
        </p>
      )}
      <Button type="submit" className="w-full" disabled={create.isPending} {...keepFocusOnPress}>
        {create.isPending ? 'Creating...' : 'Create token'}
      </Button>
    </form>
  );
}

/** The secret, this once: the server keeps only its hash. */
function SecretOnce({ secret, onDone }: { secret: string; onDone: () => void }) {
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(secret);
      toast.success('Token copied');
    } catch {
      toast.error('Could not copy the token', 'Select it and copy it by hand.');
    }
  };
  return (
    <div className="space-y-3">
      <p className="text-sm font-medium">Copy your token now: it will not be shown again.</p>
      <code className="block break-all rounded bg-muted px-2 py-1 font-mono text-sm" aria-label="API token">
        {secret}
      </code>
      <p className="text-sm text-muted-foreground">
        Send it as <code className="font-mono">Authorization: Bearer</code> followed by the token. Keep it out of code you share.
      </p>
      <div className="flex flex-wrap justify-end gap-2">
        <Button variant="outline" onClick={() => void copy()}>
          <Copy className="size-4" aria-hidden="true" /> Copy token
        </Button>
        <Button onClick={onDone}>Done</Button>
      </div>
    </div>
  );
}
