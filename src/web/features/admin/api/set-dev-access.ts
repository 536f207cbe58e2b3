import { callAdminRpc, useUserMutation } from './use-user-mutation';

/** Grants (true) or revokes (false) the user's dev access (admin_set_dev_access). */
export const setDevAccess = (input: { userId: string; granted: boolean }) =>
  callAdminRpc('admin_set_dev_access', { p_user_id: input.userId, p_granted: input.granted });

export const useSetDevAccess = () => useUserMutation(setDevAccess);
