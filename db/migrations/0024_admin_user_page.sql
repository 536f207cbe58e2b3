-- Issue 19: a page per user for admins (/admin/users/:id). What it reads: the profile, balance and
-- services in one answer (admin_user), then the ledger, the purchases and the service events in
-- pages. What it does: dev access granted or revoked, a password-reset link sent, the account
-- suspended and reactivated, the account deleted. Each change is audited in its own transaction
-- (0023). Suspension is auth.users.banned_until, which sign-in, token refresh and recovery refuse.
-- An admin may not suspend, revoke or delete themselves here: a slip would lock them out.

-- ---------------------------------------------------------------- closing an account

-- delete_own_account's work (0016) once its caller is checked, shared with admin_delete_user. The
-- caller holds the account's credit row and auth.users row and has checked that nothing installs.
create function private.close_account(p_user_id uuid) returns void
language plpgsql security definer set search_path = ''
as $$
declare
  account_email text;
  svc_id uuid;
begin
  select email into account_email from auth.users where id = p_user_id;
  for svc_id in
    select id from private.services where user_id = p_user_id and state in ('active', 'expired', 'failed')
  loop
    update private.services set state = 'deleting' where id = svc_id;
    perform private.record_service_event(svc_id, 'delete_requested', jsonb_build_object('reason', 'account_deleted'));
    perform nodeharbor.enqueue_job('uninstall-service', jsonb_build_object('serviceId', svc_id));
  end loop;
  -- Nothing of a closed account is reused or reactivated: require_user refuses it. The keys are
  -- the person's secrets: an empty one replaces each.
  update private.services
     set description = null, api_key_encrypted = private.encrypt_api_key(''), updated_at = now()
   where user_id = p_user_id;

  -- A payment not yet approved can no longer be: the order is never captured.
  update public.credit_purchases set status = 'expired', updated_at = now() where user_id = p_user_id and status = 'pending';

  delete from public.contact_messages where lower(email) = account_email;
  delete from nodeharbor.outbox where lower(to_address) = account_email;
  delete from public.profiles where id = p_user_id;
  delete from public.admin_users where user_id = p_user_id;
  delete from public.dev_access_users where user_id = p_user_id;
  delete from auth.mfa_factors where user_id = p_user_id;
  delete from auth.identities where user_id = p_user_id;
  delete from auth.sessions where user_id = p_user_id;
  delete from auth.refresh_tokens where user_id = p_user_id;
  update auth.users
     set email = null, encrypted_password = null, phone = null, email_confirmed_at = null,
         recovery_token = null, raw_user_meta_data = '{}'::jsonb, last_sign_in_at = null,
         banned_until = 'infinity', deleted_at = now(), updated_at = now()
   where id = p_user_id;
end
$$;
revoke all on function private.close_account(uuid) from public, anon, authenticated, service_role;

-- As in 0016, the closing itself now private.close_account's.
create or replace function public.delete_own_account(p_email text) returns void
language plpgsql security definer set search_path = ''
as $$
declare
  uid uuid := auth.uid();
  account auth.users;
begin
  perform private.require_aal2_if_enrolled();
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
  if exists (select 1 from private.services where user_id = uid and state = 'installing') then
    raise exception 'A service is still installing. Delete your account once it has finished.';
  end if;
  perform private.close_account(uid);
end
$$;

-- ---------------------------------------------------------------- reading one user

-- The page's head: profile, roles, suspension, second factor, balance, the live services as the
-- fleet shows them (the node's state for a running one), and how many rows each list holds. The
-- services come whole, as the owner's own list has them: each was paid for, so they are few.
-- Null when there is no such live account.
create function public.admin_user(p_user_id uuid) returns jsonb
language plpgsql stable security definer set search_path = ''
as $$
declare
  result jsonb;
begin
  perform private.require_aal2_if_enrolled();
  if not private.is_admin(auth.uid()) then
    raise exception 'Only admins can manage users' using errcode = '42501';
  end if;
  select jsonb_build_object(
           'id', u.id,
           'email', u.email,
           'full_name', p.full_name,
           'created_at', u.created_at,
           'last_sign_in_at', u.last_sign_in_at,
           'email_confirmed_at', u.email_confirmed_at,
           'is_admin', exists (select 1 from public.admin_users a where a.user_id = u.id),
           'has_dev_access', exists (select 1 from public.dev_access_users d where d.user_id = u.id),
           'suspended', coalesce(u.banned_until > now(), false),
           -- Null while suspended means until reactivated ('infinity' is no date a browser reads).
           'suspended_until', case when u.banned_until > now() and u.banned_until <> 'infinity' then u.banned_until end,
           'second_factor', exists (select 1 from auth.mfa_factors m where m.user_id = u.id and m.status = 'verified'),
           'balance', coalesce((select c.balance from public.user_credits c where c.user_id = u.id), 0),
           'services', coalesce((
             select jsonb_agg(jsonb_build_object(
                      'id', f.service_id, 'name', f.name, 'product', f.product, 'created_at', f.created_at,
                      'renews_at', s.renews_at, 'service_state', f.service_state,
                      'node_state', case when f.service_state in ('active', 'expired', 'suspended') then f.state end,
                      'host', f.host, 'last_seen_at', f.last_seen_at, 'reason', f.reason,
                      'provisioning_error', f.provisioning_error, 'restarts_24h', f.restarts_24h)
                    order by f.created_at desc, f.service_id)
               from private.fleet f join private.services s on s.id = f.service_id
              where f.user_id = u.id), '[]'::jsonb),
           'counts', jsonb_build_object(
             'transactions', (select count(*) from public.credit_transactions t where t.user_id = u.id),
             'purchases', (select count(*) from public.credit_purchases cp where cp.user_id = u.id),
             'events', (select count(*) from public.service_events e where e.user_id = u.id)))
    into result
    from auth.users u
    left join public.profiles p on p.id = u.id
   where u.id = p_user_id and u.deleted_at is null;
  -- Null for an unknown or closed account: the page says so (a 404 would be a failed request).
  return result;
end
$$;
revoke all on function public.admin_user(uuid) from public, anon;
grant execute on function public.admin_user(uuid) to authenticated;

-- The user's whole ledger, newest first, in pages; a charge names its service.
create function public.admin_user_transactions(p_user_id uuid, p_limit integer default 50, p_offset integer default 0)
returns table (
  id uuid, type text, description text, amount numeric, service_id uuid, service_name text, created_at timestamptz, total_count bigint
)
language plpgsql stable security definer set search_path = ''
as $$
begin
  perform private.require_aal2_if_enrolled();
  if not private.is_admin(auth.uid()) then
    raise exception 'Only admins can manage users' using errcode = '42501';
  end if;
  if p_limit is null or p_limit < 1 or p_limit > 200 or p_offset is null or p_offset < 0 then
    raise exception 'p_limit must be 1 to 200 and p_offset at least 0';
  end if;
  return query
    select t.id, t.type, t.description, t.amount, t.service_id, s.name, t.created_at, count(*) over ()
      from public.credit_transactions t
      left join private.services s on s.id = t.service_id
     where t.user_id = p_user_id
     order by t.created_at desc, t.id
     limit p_limit offset p_offset;
end
$$;
revoke all on function public.admin_user_transactions(uuid, integer, integer) from public, anon;
grant execute on function public.admin_user_transactions(uuid, integer, integer) to authenticated;

-- The user's credit purchases, newest first, in pages.
create function public.admin_user_purchases(p_user_id uuid, p_limit integer default 50, p_offset integer default 0)
returns table (
  id uuid, amount numeric, status text, provider text, provider_order_id text, created_at timestamptz, updated_at timestamptz, total_count bigint
)
language plpgsql stable security definer set search_path = ''
as $$
begin
  perform private.require_aal2_if_enrolled();
  if not private.is_admin(auth.uid()) then
    raise exception 'Only admins can manage users' using errcode = '42501';
  end if;
  if p_limit is null or p_limit < 1 or p_limit > 200 or p_offset is null or p_offset < 0 then
    raise exception 'p_limit must be 1 to 200 and p_offset at least 0';
  end if;
  return query
    select cp.id, cp.amount, cp.status, cp.provider, cp.provider_order_id, cp.created_at, cp.updated_at, count(*) over ()
      from public.credit_purchases cp
     where cp.user_id = p_user_id
     order by cp.created_at desc, cp.id
     limit p_limit offset p_offset;
end
$$;
revoke all on function public.admin_user_purchases(uuid, integer, integer) from public, anon;
grant execute on function public.admin_user_purchases(uuid, integer, integer) to authenticated;

-- The events of all the user's services, newest first, in pages, each with its service's name.
create function public.admin_user_events(p_user_id uuid, p_limit integer default 50, p_offset integer default 0)
returns table (
  id bigint, service_id uuid, service_name text, event text, detail jsonb, created_at timestamptz, total_count bigint
)
language plpgsql stable security definer set search_path = ''
as $$
begin
  perform private.require_aal2_if_enrolled();
  if not private.is_admin(auth.uid()) then
    raise exception 'Only admins can manage users' using errcode = '42501';
  end if;
  if p_limit is null or p_limit < 1 or p_limit > 200 or p_offset is null or p_offset < 0 then
    raise exception 'p_limit must be 1 to 200 and p_offset at least 0';
  end if;
  return query
    select e.id, e.service_id, s.name, e.event, e.detail, e.created_at, count(*) over ()
      from public.service_events e
      join private.services s on s.id = e.service_id
     where e.user_id = p_user_id
     order by e.id desc
     limit p_limit offset p_offset;
end
$$;
revoke all on function public.admin_user_events(uuid, integer, integer) from public, anon;
grant execute on function public.admin_user_events(uuid, integer, integer) to authenticated;

-- ---------------------------------------------------------------- acting on one user

-- The target's auth.users row, locked, for the actions below: a live account or 'User not found'.
create function private.lock_live_user(p_user_id uuid) returns auth.users
language plpgsql security definer set search_path = ''
as $$
declare
  account auth.users;
begin
  select * into account from auth.users where id = p_user_id and deleted_at is null for update;
  if account.id is null then
    raise exception 'User not found' using errcode = 'PT404';
  end if;
  return account;
end
$$;
revoke all on function private.lock_live_user(uuid) from public, anon, authenticated, service_role;

-- Grants or revokes dev access; returns whether the user has it now. A change that changes nothing
-- is not recorded, as roles.ts does for the CLI.
create function public.admin_set_dev_access(p_user_id uuid, p_granted boolean) returns boolean
language plpgsql security definer set search_path = ''
as $$
declare
  account auth.users;
  had boolean;
begin
  perform private.require_aal2_if_enrolled();
  if not private.is_admin(auth.uid()) then
    raise exception 'Only admins can manage users' using errcode = '42501';
  end if;
  if p_granted is null then
    raise exception 'p_granted must be true or false';
  end if;
  if p_user_id = auth.uid() and not p_granted then
    raise exception 'You cannot revoke your own dev access' using errcode = '42501';
  end if;
  account := private.lock_live_user(p_user_id);
  had := exists (select 1 from public.dev_access_users where user_id = account.id);
  if had = p_granted then
    return had;
  end if;
  if p_granted then
    insert into public.dev_access_users (user_id) values (account.id);
  else
    delete from public.dev_access_users where user_id = account.id;
  end if;
  perform private.record_admin_action(case when p_granted then 'role.dev_access.grant' else 'role.dev_access.revoke' end,
    'user', account.id::text, account.email, jsonb_build_object('granted', had), jsonb_build_object('granted', p_granted));
  return p_granted;
end
$$;
revoke all on function public.admin_set_dev_access(uuid, boolean) from public, anon;
grant execute on function public.admin_set_dev_access(uuid, boolean) to authenticated;

-- Suspends an account until p_until, or until reactivated when null: sign-in and token refresh
-- refuse it from now on and every session ends at once. Services and data stay as they are.
create function public.admin_suspend_user(p_user_id uuid, p_until timestamptz default null) returns void
language plpgsql security definer set search_path = ''
as $$
declare
  account auth.users;
  ends timestamptz := coalesce(p_until, 'infinity');
  ended integer;
begin
  perform private.require_aal2_if_enrolled();
  if not private.is_admin(auth.uid()) then
    raise exception 'Only admins can manage users' using errcode = '42501';
  end if;
  if p_user_id = auth.uid() then
    raise exception 'You cannot suspend your own account' using errcode = '42501';
  end if;
  if ends <= now() then
    raise exception 'The suspension must end in the future' using errcode = '22023';
  end if;
  account := private.lock_live_user(p_user_id);
  update auth.users set banned_until = ends, updated_at = now() where id = account.id;
  delete from auth.refresh_tokens where user_id = account.id;
  delete from auth.sessions where user_id = account.id;
  get diagnostics ended = row_count;
  perform private.record_admin_action('user.suspend', 'user', account.id::text, account.email,
    jsonb_build_object('suspended_until', case when account.banned_until > now() then account.banned_until::text end),
    jsonb_build_object('suspended_until', ends::text, 'sessions_ended', ended));
end
$$;
revoke all on function public.admin_suspend_user(uuid, timestamptz) from public, anon;
grant execute on function public.admin_suspend_user(uuid, timestamptz) to authenticated;

-- Lifts a suspension: the user may sign in again (their old sessions stay ended).
create function public.admin_reactivate_user(p_user_id uuid) returns void
language plpgsql security definer set search_path = ''
as $$
declare
  account auth.users;
begin
  perform private.require_aal2_if_enrolled();
  if not private.is_admin(auth.uid()) then
    raise exception 'Only admins can manage users' using errcode = '42501';
  end if;
  account := private.lock_live_user(p_user_id);
  if account.banned_until is null or account.banned_until <= now() then
    raise exception 'This user is not suspended' using errcode = 'PT409';
  end if;
  update auth.users set banned_until = null, updated_at = now() where id = account.id;
  perform private.record_admin_action('user.reactivate', 'user', account.id::text, account.email,
    jsonb_build_object('suspended_until', account.banned_until::text), jsonb_build_object('suspended_until', null));
end
$$;
revoke all on function public.admin_reactivate_user(uuid) from public, anon;
grant execute on function public.admin_reactivate_user(uuid) to authenticated;

-- Sends the user the recovery e-mail /reset-password sends: the same send-recovery job (auth/
-- recovery.ts), which fills in the site's links, in the same transaction as the audit entry.
create function public.admin_send_password_reset(p_user_id uuid) returns void
language plpgsql security definer set search_path = ''
as $$
declare
  account auth.users;
begin
  perform private.require_aal2_if_enrolled();
  if not private.is_admin(auth.uid()) then
    raise exception 'Only admins can manage users' using errcode = '42501';
  end if;
  account := private.lock_live_user(p_user_id);
  -- Recovery refuses a suspended account's link: sending one would only mislead them.
  if account.banned_until > now() then
    raise exception 'Reactivate this user before sending a reset link' using errcode = 'PT409';
  end if;
  perform nodeharbor.enqueue_job('send-recovery', jsonb_build_object('email', account.email, 'requestId', gen_random_uuid()));
  perform private.record_admin_action('user.password_reset_link', 'user', account.id::text, account.email,
    null, jsonb_build_object('sent_to', account.email));
end
$$;
revoke all on function public.admin_send_password_reset(uuid) from public, anon;
grant execute on function public.admin_send_password_reset(uuid) to authenticated;

-- Deletes an account as its owner would (decision 006: the ledger stays), confirmed by its e-mail.
create function public.admin_delete_user(p_user_id uuid, p_email text) returns void
language plpgsql security definer set search_path = ''
as $$
declare
  account auth.users;
  balance numeric;
begin
  perform private.require_aal2_if_enrolled();
  if not private.is_admin(auth.uid()) then
    raise exception 'Only admins can manage users' using errcode = '42501';
  end if;
  if p_user_id = auth.uid() then
    raise exception 'You cannot delete your own account here' using errcode = '42501';
  end if;
  -- The credit row first, as every writer of money and services does.
  select c.balance into balance from public.user_credits c where c.user_id = p_user_id for update;
  account := private.lock_live_user(p_user_id);
  if p_email is null or lower(trim(p_email)) <> account.email then
    raise exception 'The e-mail address does not match this account' using errcode = '22023';
  end if;
  if exists (select 1 from private.services where user_id = account.id and state = 'installing') then
    raise exception 'A service of this user is still installing. Delete the account once it has finished.';
  end if;
  perform private.record_admin_action('user.delete', 'user', account.id::text, account.email,
    jsonb_build_object('email', account.email, 'balance', to_char(coalesce(balance, 0), 'FM9999999999990.00')),
    jsonb_build_object('deleted', true));
  perform private.close_account(account.id);
end
$$;
revoke all on function public.admin_delete_user(uuid, text) from public, anon;
grant execute on function public.admin_delete_user(uuid, text) to authenticated;
