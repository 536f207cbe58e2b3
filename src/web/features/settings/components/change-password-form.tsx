import { zodResolver } from '@hookform/resolvers/zod';
import { changePasswordSchema } from '@shared/validation';
import { useForm } from 'react-hook-form';
import type { z } from 'zod';
import { Button } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { InputField, keepFocusOnPress } from '@/components/ui/form-field';
import { errorText } from '@/lib/error-text';
import { preloadPasswordRule, weakPasswordMessage } from '@/lib/password-rule';
import { useSignedInUser } from '@/lib/signed-in-user';
import { toast } from '@/lib/toast';
import { useUpdatePassword } from '../api/update-password';

type Values = z.input<typeof changePasswordSchema>;

export function ChangePasswordForm() {
  const update = useUpdatePassword();
  const user = useSignedInUser();
  const form = useForm<Values>({
    resolver: zodResolver(changePasswordSchema),
    mode: 'onTouched',
    defaultValues: { currentPassword: '', newPassword: '', confirmPassword: '' },
  });
  const { errors, isSubmitting } = form.formState;

  // A confirmation already given is checked again once the password it must match is left.
  const recheckConfirmation = () => void (form.getFieldState('confirmPassword').isTouched && form.trigger('confirmPassword'));

  const onSubmit = form.handleSubmit(async ({ currentPassword, newPassword }) => {
    try {
      const weak = await weakPasswordMessage(newPassword, user);
      if (weak) return form.setError('newPassword', { message: weak }, { shouldFocus: true });
      await update.mutateAsync({ currentPassword, newPassword });
      toast.success('Password updated successfully', 'Your password has been changed.');
      form.reset();
    } catch (e) {
      toast.error('Error updating password', errorText(e));
    }
  });

  return (
    <Card role="region" aria-labelledby="password-heading">
      <h2 id="password-heading" className="text-lg font-semibold">
        Change Password
      </h2>
      <form onSubmit={onSubmit} noValidate className="mt-4 space-y-4">
        <InputField
          id="current-password"
          label="Current password"
          error={errors.currentPassword?.message}
          type="password"
          autoComplete="current-password"
          {...form.register('currentPassword')}
        />
        <InputField
          id="new-password"
          label="New password"
          error={errors.newPassword?.message}
          type="password"
          autoComplete="new-password"
          onFocus={preloadPasswordRule}
          {...form.register('newPassword', { onBlur: recheckConfirmation })}
        />
        <InputField
          id="confirm-password"
          label="Confirm new password"
          error={errors.confirmPassword?.message}
          type="password"
          autoComplete="new-password"
          {...form.register('confirmPassword')}
        />
        <Button type="submit" disabled={isSubmitting} {...keepFocusOnPress}>
          {isSubmitting ? 'Updating password...' : 'Update Password'}
        </Button>
      </form>
    </Card>
  );
}
