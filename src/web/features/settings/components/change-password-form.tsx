import { zodResolver } from '@hookform/resolvers/zod';
import { changePasswordSchema } from '@shared/validation';
import { useForm } from 'react-hook-form';
import type { z } from 'zod';
import { Button } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { FormField, invalidProps } from '@/components/ui/form-field';
import { Input } from '@/components/ui/input';
import { errorText } from '@/lib/error-text';
import { toast } from '@/lib/toast';
import { useUpdatePassword } from '../api/update-password';

type Values = z.input<typeof changePasswordSchema>;

export function ChangePasswordForm() {
  const update = useUpdatePassword();
  const form = useForm<Values>({ resolver: zodResolver(changePasswordSchema), defaultValues: { currentPassword: '', newPassword: '', confirmPassword: '' } });
  const { errors, isSubmitting } = form.formState;

  const onSubmit = form.handleSubmit(async ({ newPassword }) => {
    try {
      await update.mutateAsync(newPassword);
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
        <FormField id="current-password" label="Current password">
          <Input id="current-password" type="password" autoComplete="current-password" {...form.register('currentPassword')} />
        </FormField>
        <FormField id="new-password" label="New password" error={errors.newPassword?.message}>
          <Input id="new-password" type="password" autoComplete="new-password" {...form.register('newPassword')} {...invalidProps('new-password', errors.newPassword?.message)} />
        </FormField>
        <FormField id="confirm-password" label="Confirm new password" error={errors.confirmPassword?.message}>
          <Input
            id="confirm-password"
            type="password"
            autoComplete="new-password"
            {...form.register('confirmPassword')}
            {...invalidProps('confirm-password', errors.confirmPassword?.message)}
          />
        </FormField>
        <Button type="submit" disabled={isSubmitting}>
          {isSubmitting ? 'Updating password...' : 'Update Password'}
        </Button>
      </form>
    </Card>
  );
}
