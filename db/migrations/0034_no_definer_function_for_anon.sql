-- Supabase's linter, 0028 anon_security_definer_function_executable: these SECURITY DEFINER
-- functions of the API schema kept the default EXECUTE for PUBLIC, so anon could call them. Each
-- refuses a caller without a user with a message meant for another caller ("You can only change
-- your own balance"), and has nothing for anon: only signed-in users, admins and the server's own
-- role call them. Without EXECUTE, anon is refused before the function runs, with the same 401.
-- A new one that forgets this fails test/domain/database-lint.test.ts.
--
-- The others keep EXECUTE for anon because what they answer it is the product's: is_user_admin
-- and has_dev_access answer false, and the service and account functions a dashboard whose
-- session ended still calls say "You must be logged in" (the spec's words for creating a service).
revoke execute on function
  public.get_unused_purchased_services(uuid),
  public.update_user_credits(uuid, numeric, text, text, uuid, text),
  public.admin_add_credit(uuid, numeric, text, text)
from public, anon;
grant execute on function
  public.get_unused_purchased_services(uuid),
  public.update_user_credits(uuid, numeric, text, text, uuid, text),
  public.admin_add_credit(uuid, numeric, text, text)
to authenticated, service_role;
