import { zodResolver } from '@hookform/resolvers/zod';
import { resetPasswordSchema } from '@shared/validation';
import { useForm } from 'react-hook-form';
import { useNavigate } from 'react-router';
import type { z } from 'zod';
import { Button } from '@/components/ui/button';
import { InputField, keepFocusOnPress } from '@/components/ui/form-field';
import { paths } from '@/config/paths';
import { getSupabase } from '@/lib/supabase';
import { errorText } from '@/lib/error-text';
import { toast } from '@/lib/toast';
import { useHydrated } from '@/lib/deferred-hydration';
import { preloadPasswordRule, weakPasswordMessage } from '@/lib/password-rule';
import { toSignedInUser } from '@/lib/signed-in-user';

type NewPasswordInput = z.input<typeof resetPasswordSchema>;

/** Sets the new password on the recovery session, then signs out and goes to /login (spec §4). */
export function NewPasswordForm() {
  const navigate = useNavigate();
  const form = useForm<NewPasswordInput>({
    resolver: zodResolver(resetPasswordSchema),
    mode: 'onTouched',
    defaultValues: { password: '', confirmPassword: '' },
  });
  const { errors, isSubmitting } = form.formState;
  // Until the page runs, pressing Enter or the button would submit the form natively.
  const hydrated = useHydrated();

  // A confirmation already given is checked again once the password it must match is left.
  const recheckConfirmation = () => void (form.getFieldState('confirmPassword').isTouched && form.trigger('confirmPassword'));

  const onSubmit = form.handleSubmit(async ({ password }) => {
    try {
      const supabase = await getSupabase();
      // The recovery session's user: their own address and name are a guesser's first tries.
      const { session } = (await supabase.auth.getSession()).data;
      const weak = await weakPasswordMessage(password, session ? toSignedInUser(session) : {});
      if (weak) return form.setError('password', { message: weak }, { shouldFocus: true });
      const { error } = await supabase.auth.updateUser({ password });
      if (error) return toast.error('Error updating password', error.message);
      toast.success('Password updated successfully!');
      await supabase.auth.signOut();
      navigate(paths.login, { replace: true });
    } catch (e) {
      toast.error('Error updating password', errorText(e));
    }
  });

  return (
    <form onSubmit={onSubmit} noValidate className="space-y-4">
      <InputField
        id="new-password"
        label="New password"
        error={errors.password?.message}
        type="password"
        autoComplete="new-password"
        onFocus={preloadPasswordRule}
        {...form.register('password', { onBlur: recheckConfirmation })}
      />
      <InputField
        id="confirm-password"
        label="Confirm new password"
        error={errors.confirmPassword?.message}
        type="password"
        autoComplete="new-password"
        {...form.register('confirmPassword')}
      />
      <Button type="submit" disabled={!hydrated || isSubmitting} className="w-full" {...keepFocusOnPress}>
        {isSubmitting ? 'Updating password...' : 'Update password'}
      </Button>
    </form>
  );
}
