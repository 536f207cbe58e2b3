import { callAdminRpc, useUserMutation } from './use-user-mutation';

/** Deletes the account as its owner would, the ledger kept (admin_delete_user); `email` is the admin's typed confirmation. */
export const deleteUser = (input: { userId: string; email: string }) => callAdminRpc('admin_delete_user', { p_user_id: input.userId, p_email: input.email });

export const useDeleteUser = () => useUserMutation(deleteUser);
