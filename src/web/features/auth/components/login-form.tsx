import { zodResolver } from '@hookform/resolvers/zod';
import { NEW_ADDRESS_LINK_CODE } from '@shared/constants';
import { messages, signInSchema } from '@shared/validation';
import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { useNavigate } from 'react-router';
import type { z } from 'zod';
import { Button } from '@/components/ui/button';
import { InputField, keepFocusOnPress } from '@/components/ui/form-field';
import { paths } from '@/config/paths';
import { showAuthError } from '@/features/auth/auth-error';
import { needsSecondFactor } from '@/lib/second-factor';
import { getSupabase } from '@/lib/supabase';
import { toast } from '@/lib/toast';
import { useDeferredForm } from '@/lib/use-deferred-form';

type SignInInput = z.input<typeof signInSchema>;

export function LoginForm() {
  const navigate = useNavigate();
  // No defaultValues: the form hydrates after the visitor's first keystrokes (deferred), and
  // react-hook-form would write the defaults over what they typed; it reads the fields instead.
  const form = useForm<SignInInput>({ resolver: zodResolver(signInSchema), mode: 'onTouched' });
  const { errors, isSubmitting } = form.formState;
  // A new address of a locked account: the words on where the link is stay on the form, as a
  // toast goes before they can be read twice.
  const [linkMailed, setLinkMailed] = useState(false);

  const formProps = useDeferredForm(form, async ({ email, password }) => {
    try {
      const supabase = await getSupabase();
      const { data, error } = await supabase.auth.signInWithPassword({ email, password });
      setLinkMailed(error?.code === NEW_ADDRESS_LINK_CODE);
      if (error) return showAuthError(error);
      // The login page now asks for the second factor; welcome comes after it.
      if (needsSecondFactor(data.session)) return;
      toast.success('Welcome back!');
      navigate(paths.dashboard, { replace: true });
    } catch (e) {
      showAuthError(e);
    }
  });

  return (
    <form {...formProps} noValidate className="space-y-4">
      <InputField id="login-email" label="Email" error={errors.email?.message} type="email" autoComplete="email" {...form.register('email')} />
      <InputField
        id="login-password"
        label="Password"
        error={errors.password?.message}
        type="password"
        autoComplete="current-password"
        {...form.register('password')}
      />
      {linkMailed && (
        <p role="status" className="rounded-md border border-border bg-accent px-4 py-3 text-sm">
          {messages.newAddressLinkSent}
        </p>
      )}
      <Button type="submit" disabled={isSubmitting} className="w-full" {...keepFocusOnPress}>
        {isSubmitting ? 'Signing in...' : 'Sign In'}
      </Button>
    </form>
  );
}
