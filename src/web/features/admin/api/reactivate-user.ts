import { callAdminRpc, useUserMutation } from './use-user-mutation';

/** Lifts the user's suspension (admin_reactivate_user). */
export const reactivateUser = (input: { userId: string }) => callAdminRpc('admin_reactivate_user', { p_user_id: input.userId });

export const useReactivateUser = () => useUserMutation(reactivateUser);
