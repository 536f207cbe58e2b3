import { callAdminRpc, useUserMutation } from './use-user-mutation';

/** Suspends the user until `until` (an ISO time), or until reactivated when null; every session of theirs ends. */
export const suspendUser = (input: { userId: string; until: string | null }) =>
  callAdminRpc('admin_suspend_user', { p_user_id: input.userId, p_until: input.until });

export const useSuspendUser = () => useUserMutation(suspendUser);
