import { PROFILE_FULL_NAME_MAX } from '@shared/constants';
import { adminCreateUserSchema, type AdminCreateUserInput } from '@shared/validation';
import { useState } from 'react';
import { Button } from '@/components/ui/button';
import { Dialog } from '@/components/ui/dialog';
import { InputField, keepFocusOnPress } from '@/components/ui/form-field';
import { toast } from '@/lib/toast';
import { useTouchedFields } from '@/lib/use-touched-fields';
import { useCreateUser } from '../api/create-user';

type Field = 'email' | 'full_name' | 'password' | 'credits';

/** Admin › Create user: registration is closed to the public, so an admin makes accounts here. */
export function CreateUserDialog() {
  const [open, setOpen] = useState(false);
  return (
    <Dialog
      open={open}
      onOpenChange={setOpen}
      title="Create user"
      description="The user can sign in at once with this email address and password."
      trigger={<Button size="sm">Create user</Button>}
    >
      {open && <CreateUserForm onDone={() => setOpen(false)} />}
    </Dialog>
  );
}

function CreateUserForm({ onDone }: { onDone: () => void }) {
  const create = useCreateUser();
  const [email, setEmail] = useState('');
  const [fullName, setFullName] = useState('');
  const [password, setPassword] = useState('');
  const [admin, setAdmin] = useState(false);
  const [credits, setCredits] = useState('');
  const [submitted, setSubmitted] = useState(false);
  const { isTouched, track } = useTouchedFields<Field>();

  const input: AdminCreateUserInput = { email, full_name: fullName, password, admin, credits: credits.trim() === '' ? null : Number(credits) };
  const parsed = adminCreateUserSchema.safeParse(input);
  const problems: Partial<Record<Field, string>> = {};
  for (const issue of parsed.success ? [] : parsed.error.issues) problems[issue.path[0] as Field] ??= issue.message;
  // A field speaks once it has been left, and every field once Create has been pressed.
  const shown = (field: Field) => ((submitted || isTouched(field)) && problems[field]) || undefined;

  const submit = async () => {
    try {
      const user = await create.mutateAsync(input);
      toast.success('User created', `${user.email} can now sign in.`);
      onDone();
    } catch {
      // The server's reason stays in the form (create.error), beside what the admin typed.
    }
  };

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
        id="new-user-email"
        label="Email"
        type="email"
        autoComplete="off"
        error={shown('email')}
        value={email}
        wrapper={track('email')}
        onChange={(e) => setEmail(e.target.value)}
      />
      <InputField
        id="new-user-name"
        label="Full name"
        autoComplete="off"
        maxLength={PROFILE_FULL_NAME_MAX}
        error={shown('full_name')}
        value={fullName}
        wrapper={track('full_name')}
        onChange={(e) => setFullName(e.target.value)}
      />
      <InputField
        id="new-user-password"
        label="Password"
        type="password"
        autoComplete="new-password"
        error={shown('password')}
        value={password}
        wrapper={track('password')}
        onChange={(e) => setPassword(e.target.value)}
      />
      <label className="flex items-center gap-2 text-sm">
        <input type="checkbox" checked={admin} onChange={(e) => setAdmin(e.target.checked)} className="size-4" />
        Make this user an admin
      </label>
      <InputField
        id="new-user-credits"
        label="Initial credit (USD, optional)"
        type="number"
        min={0.01}
        step={0.01}
        error={shown('credits')}
        value={credits}
        wrapper={track('credits')}
        onChange={(e) => setCredits(e.target.value)}
      />
      {create.error && (
        <p role="alert" className="text-sm text-destructive">
          {create.error.message}
        </p>
      )}
      <Button type="submit" className="w-full" disabled={create.isPending} {...keepFocusOnPress}>
        {create.isPending ? 'Creating...' : 'Create user'}
      </Button>
    </form>
  );
}
