import { zodResolver } from '@hookform/resolvers/zod';
import { signUpSchema } from '@shared/validation';
import { useForm } from 'react-hook-form';
import type { z } from 'zod';
import { Button } from '@/components/ui/button';
import { InputField, keepFocusOnPress } from '@/components/ui/form-field';
import { showAuthError } from '@/features/auth/auth-error';
import { getSupabase } from '@/lib/supabase';
import { toast } from '@/lib/toast';
import { useHydrated } from '@/lib/deferred-hydration';
import { preloadPasswordRule, weakPasswordMessage } from '@/lib/password-rule';

type SignUpInput = z.input<typeof signUpSchema>;

/** Shown only when the server enables registration (REGISTRATION_ENABLED); spec §2 has it off. */
export function SignUpForm() {
  const form = useForm<SignUpInput>({
    resolver: zodResolver(signUpSchema),
    mode: 'onTouched',
    defaultValues: { email: '', password: '', confirmPassword: '', fullName: '' },
  });
  const { errors, isSubmitting } = form.formState;
  // Until the page runs, pressing Enter or the button would submit the form natively.
  const hydrated = useHydrated();

  const onSubmit = form.handleSubmit(async ({ email, password, fullName }) => {
    try {
      const weak = await weakPasswordMessage(password, { email, fullName });
      if (weak) return form.setError('password', { message: weak }, { shouldFocus: true });
      const supabase = await getSupabase();
      const { error } = await supabase.auth.signUp({ email, password, options: { data: { full_name: fullName } } });
      if (error) return showAuthError(error);
      toast.success('Account created successfully!', 'Please check your email to verify your account.');
      form.reset();
    } catch (e) {
      showAuthError(e);
    }
  });

  // A confirmation already given is checked again once the password it must match is left.
  const recheckConfirmation = () => void (form.getFieldState('confirmPassword').isTouched && form.trigger('confirmPassword'));
  const field = (id: string, name: keyof SignUpInput, label: string, type: string, autoComplete: string) => (
    <InputField
      id={id}
      label={label}
      error={errors[name]?.message}
      type={type}
      autoComplete={autoComplete}
      onFocus={name === 'password' ? preloadPasswordRule : undefined}
      {...form.register(name, name === 'password' ? { onBlur: recheckConfirmation } : {})}
    />
  );

  return (
    <form onSubmit={onSubmit} noValidate className="space-y-4">
      {field('signup-name', 'fullName', 'Full name', 'text', 'name')}
      {field('signup-email', 'email', 'Email', 'email', 'email')}
      {field('signup-password', 'password', 'Password', 'password', 'new-password')}
      {field('signup-confirm', 'confirmPassword', 'Confirm password', 'password', 'new-password')}
      <Button type="submit" disabled={!hydrated || isSubmitting} className="w-full" {...keepFocusOnPress}>
        {isSubmitting ? 'Creating account...' : 'Create account'}
      </Button>
    </form>
  );
}
