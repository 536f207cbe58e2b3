import { callAdminRpc, useUserMutation } from './use-user-mutation';

/** Queues the recovery e-mail /reset-password would send the user (admin_send_password_reset). */
export const sendPasswordReset = (input: { userId: string }) => callAdminRpc('admin_send_password_reset', { p_user_id: input.userId });

export const useSendPasswordReset = () => useUserMutation(sendPasswordReset);
