-- Supabase's linter, 0028 anon_security_definer_function_executable: these SECURITY DEFINER
-- functions of the API schema kept the default EXECUTE for PUBLIC, so anon could call them. Each
-- refuses a caller without a user, but none has anything for one: only signed-in users (and the
-- server's own role) call them. Without EXECUTE, anon is refused before the function runs, with
-- the same 401. A new one that forgets this fails test/domain/database-lint.test.ts.
-- is_user_admin and has_dev_access keep it: the spec's contract answers anon false, not 401.
revoke execute on function
  public.get_unused_purchased_services(uuid),
  public.create_service_securely(text, text, text, uuid),
  public.manage_service_operation(uuid, text, jsonb),
  public.extend_service_expiration(uuid, uuid, integer),
  public.update_user_credits(uuid, numeric, text, text, uuid, text),
  public.admin_add_credit(uuid, numeric, text, text),
  public.delete_own_account(text)
from public, anon;
grant execute on function
  public.get_unused_purchased_services(uuid),
  public.create_service_securely(text, text, text, uuid),
  public.manage_service_operation(uuid, text, jsonb),
  public.extend_service_expiration(uuid, uuid, integer),
  public.update_user_credits(uuid, numeric, text, text, uuid, text),
  public.admin_add_credit(uuid, numeric, text, text),
  public.delete_own_account(text)
to authenticated, service_role;
