-- Deleting one's own account (issue 6, decision 006). Like GoTrue's soft delete, the auth.users
-- row stays, stripped of everything that identifies the person, so the rows the law needs (the
-- ledger, the payments, the balance they add up to) keep pointing at a real id. Everything else
-- that is the person's goes: profile, roles, sign-in methods, sessions, second factors, contact
-- messages, the mail sent to them, and every node, through the same uninstall job a single delete uses.

create function private.is_live_user(p_user_id uuid) returns boolean
language sql stable security definer set search_path = ''
as $$ select exists (select 1 from auth.users where id = p_user_id and deleted_at is null) $$;
revoke all on function private.is_live_user(uuid) from public, anon, authenticated, service_role;

-- An access token outlives its account by up to its expiry: these refuse it as if signed out.
create or replace function private.require_user() returns uuid
language plpgsql stable security definer set search_path = ''
as $$
begin
  if auth.uid() is null or not private.is_live_user(auth.uid()) then
    raise exception 'You must be logged in to create a service' using errcode = '42501';
  end if;
  return auth.uid();
end
$$;

create or replace function private.begin_credit_purchase(p_amount numeric, p_provider text) returns uuid
language plpgsql security definer set search_path = ''
as $$
declare
  purchase_id uuid;
begin
  if auth.uid() is null or not private.is_live_user(auth.uid()) then
    raise exception 'User not authenticated' using errcode = '42501';
  end if;
  if p_amount is null or p_amount <> round(p_amount, 2) then
    raise exception 'The amount must be a number of dollars with at most 2 decimals' using errcode = '22023';
  end if;
  if p_amount < 1 then
    raise exception 'Minimum purchase is $1' using errcode = '22023';
  end if;
  if p_amount > 10000 then
    raise exception 'Maximum purchase is $10,000' using errcode = '22023';
  end if;
  if p_provider is null or p_provider not in ('paypal', 'test') then
    raise exception 'Unknown payment provider' using errcode = '22023';
  end if;
  insert into public.credit_purchases (user_id, amount, provider)
  values (auth.uid(), p_amount, p_provider)
  returning id into purchase_id;
  return purchase_id;
end
$$;

create or replace function public.admin_add_credit(p_user_id uuid, p_amount numeric, p_note text, p_idempotency_key text default null)
returns numeric
language plpgsql security definer set search_path = ''
as $$
declare
  new_balance numeric;
begin
  if not private.is_admin(auth.uid()) then
    raise exception 'Only admins can add credit' using errcode = '42501';
  end if;
  if p_amount is null or p_amount <= 0 or p_amount <> round(p_amount, 2) or p_amount >= 10000000000 then
    raise exception 'The amount must be a positive number of dollars with at most two decimals';
  end if;
  if coalesce(trim(p_note), '') = '' or char_length(p_note) > 500 then
    raise exception 'A note of 1 to 500 characters is required';
  end if;
  if p_idempotency_key is not null and (p_idempotency_key = '' or char_length(p_idempotency_key) > 200) then
    raise exception 'p_idempotency_key must be 1 to 200 characters';
  end if;
  perform 1 from public.user_credits where user_id = p_user_id for update;
  if not found or not private.is_live_user(p_user_id) then
    raise exception 'No such user';
  end if;
  -- The key names the admin, so two admins' retries never merge into one credit.
  perform private.post_transaction(p_user_id, p_amount, 'admin_credit', trim(p_note), null,
    'admin:' || auth.uid()::text || ':' || coalesce(p_idempotency_key, gen_random_uuid()::text));
  select balance into new_balance from public.user_credits where user_id = p_user_id;
  return new_balance;
end
$$;

create function public.delete_own_account(p_email text) returns void
language plpgsql security definer set search_path = ''
as $$
declare
  uid uuid := auth.uid();
  account auth.users;
  svc_id uuid;
begin
  if uid is null then
    raise exception 'You must be logged in' using errcode = '42501';
  end if;
  -- The credit row first, as every writer of money and services does: no creation races this.
  perform 1 from public.user_credits where user_id = uid for update;
  select * into account from auth.users where id = uid and deleted_at is null for update;
  if account.id is null then
    raise exception 'You must be logged in' using errcode = '42501';
  end if;
  if p_email is null or lower(trim(p_email)) <> account.email then
    raise exception 'The e-mail address does not match your account' using errcode = '22023';
  end if;
  -- A node being set up cannot be stopped halfway (spec §4 refuses its deletion too).
  if exists (select 1 from private.services where user_id = uid and not is_installed and not is_deleted and not is_deleting) then
    raise exception 'A service is still installing. Delete your account once it has finished.';
  end if;

  for svc_id in
    select id from private.services where user_id = uid and not is_deleted and not is_deleting
  loop
    update private.services set is_deleting = true, updated_at = now() where id = svc_id;
    perform private.record_service_event(svc_id, 'delete_requested', jsonb_build_object('reason', 'account_deleted'));
    perform nodeharbor.enqueue_job('uninstall-service', jsonb_build_object('serviceId', svc_id));
  end loop;
  -- Expired: nothing of a closed account renews, is reused or reactivated. The keys are the
  -- person's secrets: an empty one replaces each.
  update private.services
     set expired = true, description = null,
         api_key_encrypted = extensions.pgp_sym_encrypt('', private.encryption_key()), updated_at = now()
   where user_id = uid;

  -- A payment not yet approved can no longer be: the order is never captured.
  update public.credit_purchases set status = 'expired', updated_at = now() where user_id = uid and status = 'pending';

  delete from public.contact_messages where lower(email) = account.email;
  delete from nodeharbor.outbox where lower(to_address) = account.email;
  delete from public.profiles where id = uid;
  delete from public.admin_users where user_id = uid;
  delete from public.dev_access_users where user_id = uid;
  delete from auth.mfa_factors where user_id = uid;
  delete from auth.identities where user_id = uid;
  delete from auth.sessions where user_id = uid;
  delete from auth.refresh_tokens where user_id = uid;
  update auth.users
     set email = null, encrypted_password = null, phone = null, email_confirmed_at = null,
         recovery_token = null, raw_user_meta_data = '{}'::jsonb, last_sign_in_at = null,
         banned_until = 'infinity', deleted_at = now(), updated_at = now()
   where id = uid;
end
$$;
