import { zodResolver } from '@hookform/resolvers/zod';
import { messages } from '@shared/validation';
import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { z } from 'zod';
import { Button } from '@/components/ui/button';
import { InputField, keepFocusOnPress } from '@/components/ui/form-field';
import { paths } from '@/config/paths';
import { showAuthError } from '@/features/auth/auth-error';
import { getSupabase } from '@/lib/supabase';
import { toast } from '@/lib/toast';
import { useDeferredForm } from '@/lib/use-deferred-form';

const schema = z.object({ email: z.string().trim().email(messages.email) });

/** The answer is the same whether or not the account exists (spec §8). */
export const RESET_SENT_TEXT = 'If an account exists for that email address, we have sent a link to reset your password. Check your inbox.';

export function ResetRequestForm() {
  const [sent, setSent] = useState(false);
  // No defaultValues: the form hydrates after the visitor's first keystrokes (deferred), and
  // react-hook-form would write the defaults over what they typed; it reads the fields instead.
  const form = useForm<z.input<typeof schema>>({ resolver: zodResolver(schema), mode: 'onTouched' });
  const { errors, isSubmitting } = form.formState;

  const formProps = useDeferredForm(form, async ({ email }) => {
    try {
      const supabase = await getSupabase();
      const { error } = await supabase.auth.resetPasswordForEmail(email, { redirectTo: `${window.location.origin}${paths.resetPasswordConfirm}` });
      if (error) return showAuthError(error);
      toast.success('Password reset email sent!', RESET_SENT_TEXT);
      setSent(true);
    } catch (e) {
      showAuthError(e);
    }
  });

  if (sent) {
    return (
      <p role="status" className="rounded-md border border-border bg-accent px-4 py-3 text-sm">
        {RESET_SENT_TEXT}
      </p>
    );
  }
  return (
    <form {...formProps} noValidate className="space-y-4">
      <InputField id="reset-email" label="Email" error={errors.email?.message} type="email" autoComplete="email" {...form.register('email')} />
      <Button type="submit" disabled={isSubmitting} className="w-full" {...keepFocusOnPress}>
        {isSubmitting ? 'Checking email...' : 'Send reset link'}
      </Button>
    </form>
  );
}
