-- The second factor guards everything (issue 15). Once a user has a verified factor, a session
-- that has not passed it (aal1) may only step up, sign out and read its factors, which GoTrue
-- (/auth/v1) serves as the owner; in the database it may do nothing. As Supabase documents: a
-- restrictive policy on every table the API exposes, and the same rule at the start of every
-- SECURITY DEFINER function a signed-in user can call. Every function that writes also refuses a
-- deleted account's token, valid until it expires. The API roles lose the grants that nothing
-- uses: TRUNCATE ignores row-level security, and no policy lets them write these tables.
-- Functions below are those of 0011, 0014 and 0015 with the checks added at their start.

-- ---------------------------------------------------------------- the rule

-- True unless the caller has a verified factor and a token below aal2. SECURITY DEFINER: policies
-- evaluate it as the caller, who cannot read auth.mfa_factors.
create function private.meets_required_aal() returns boolean
language sql stable security definer set search_path = ''
as $$
  select coalesce(auth.jwt() ->> 'aal', 'aal1') = 'aal2'
      or not exists (select 1 from auth.mfa_factors where user_id = auth.uid() and status = 'verified')
$$;
revoke all on function private.meets_required_aal() from public;
grant execute on function private.meets_required_aal() to authenticated;

-- 42501: PostgREST answers 403 to a signed-in caller. The text is messages.secondFactorRequired.
create function private.require_aal2_if_enrolled() returns void
language plpgsql stable security definer set search_path = ''
as $$
begin
  if not private.meets_required_aal() then
    raise exception 'Two-factor sign-in required' using errcode = '42501';
  end if;
end
$$;
revoke all on function private.require_aal2_if_enrolled() from public, anon, authenticated, service_role;

-- ---------------------------------------------------------------- tables and the services view

-- (select ...): evaluated once per statement, not once per row.
do $$
declare
  t text;
begin
  foreach t in array array['admin_users', 'contact_messages', 'credit_purchases', 'credit_transactions',
                           'dev_access_users', 'products', 'profiles', 'service_events', 'user_credits']
  loop
    execute format(
      'create policy "A verified second factor needs an aal2 session" on public.%I as restrictive for all to authenticated
         using ((select private.meets_required_aal())) with check ((select private.meets_required_aal()))', t);
  end loop;
end
$$;

-- A view has no policies: the rule joins its filter.
create or replace view public.services with (security_barrier) as
select r.id, r.user_id, r.name, r.description,
       private.decrypt_api_key(r.user_id, r.api_key_encrypted) as api_key,
       r.product_id, r.created_at, r.renews_at, r.expired, r.is_installed, r.is_deleting, r.is_deleted,
       r.state::text as state, r.provisioning_error
  from private.service_rows r
 where r.user_id = auth.uid() and (select private.meets_required_aal());

-- ---------------------------------------------------------------- functions

create or replace function private.require_user() returns uuid
language plpgsql stable security definer set search_path = ''
as $$
begin
  perform private.require_aal2_if_enrolled();
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
  perform private.require_aal2_if_enrolled();
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
  perform private.require_aal2_if_enrolled();
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

create or replace function public.get_unused_purchased_services(p_user_id uuid)
returns table (id uuid, name text, description text, product_id uuid, product_name text, product_price numeric,
               created_at timestamptz, renews_at timestamptz)
language plpgsql stable security definer set search_path = ''
as $$
#variable_conflict use_column
begin
  perform private.require_aal2_if_enrolled();
  if auth.uid() is null or auth.uid() <> p_user_id then
    raise exception 'You can only list your own services' using errcode = '42501';
  end if;
  return query
    select s.id, s.name, s.description, s.product_id, p.name, p.price, s.created_at, s.renews_at
      from private.services s join public.products p on p.id = s.product_id
     where s.user_id = p_user_id and private.is_reusable(s.state, s.renews_at)
     order by s.renews_at asc nulls last, s.created_at;
end
$$;

create or replace function public.manage_service_operation(p_service_id uuid, p_operation text, p_updates jsonb default null)
returns jsonb
language plpgsql security definer set search_path = ''
as $$
declare
  uid uuid := auth.uid();
  svc private.services;
  props text;
  new_name text;
  new_key text;
  problem text;
begin
  perform private.require_aal2_if_enrolled();
  if uid is null or not private.is_live_user(uid) then
    raise exception 'You must be logged in' using errcode = '42501';
  end if;
  perform 1 from public.user_credits where user_id = uid for update;
  select * into svc from private.services where id = p_service_id and user_id = uid;
  if svc.id is null then
    raise exception 'Service not found' using errcode = 'PT404';
  end if;
  if p_updates is not null and jsonb_typeof(p_updates) <> 'object' then
    raise exception 'p_updates must be an object';
  end if;

  if p_operation = 'delete' then
    if svc.state in ('deleting', 'deleted') then
      raise exception 'Service is currently being deleted...';
    end if;
    if svc.state = 'installing' then
      raise exception 'Cannot delete, service is currently installing...';
    end if;
    update private.services set state = 'deleting' where id = svc.id;
    perform private.record_service_event(svc.id, 'delete_requested');
    perform nodeharbor.enqueue_job('uninstall-service', jsonb_build_object('serviceId', svc.id));

  elsif p_operation in ('update', 'reactivate') then
    if p_updates is null or exists (select 1 from jsonb_object_keys(p_updates) k where k not in ('name', 'description', 'api_key')) then
      raise exception 'Only name, description and api_key can be updated';
    end if;
    if exists (select 1 from jsonb_each(p_updates) e where jsonb_typeof(e.value) not in ('string', 'null')) then
      raise exception 'name, description and api_key must be text';
    end if;
    if p_operation = 'reactivate' then
      if not private.is_reusable(svc.state, svc.renews_at) then
        raise exception 'This service cannot be reactivated';
      end if;
    elsif svc.state in ('deleting', 'deleted') then
      raise exception 'Service is currently being deleted...';
    end if;
    new_name := coalesce(p_updates ->> 'name', svc.name);
    if trim(new_name) = '' then
      raise exception 'Service name is required';
    end if;
    problem := private.service_name_error(new_name);
    if problem is not null then
      raise exception '%', problem;
    end if;
    if exists (select 1 from private.services where user_id = uid and state <> 'deleted' and id <> svc.id and lower(name) = lower(new_name)) then
      raise exception 'A service with this name already exists';
    end if;
    new_key := p_updates ->> 'api_key';
    if coalesce(new_key, '') = '' and (p_operation = 'reactivate' or p_updates ? 'api_key') then
      raise exception 'API key is required';
    end if;
    if new_key is not null then
      select properties into props from public.products where id = svc.product_id;
      perform private.check_api_key(new_key, props);
    end if;
    if char_length(p_updates ->> 'description') > 500 then
      raise exception 'The description must be at most 500 characters';
    end if;
    update private.services
       set name = new_name,
           description = case when p_operation = 'reactivate' or p_updates ? 'description'
                              then nullif(trim(p_updates ->> 'description'), '')
                              else description end,
           api_key_encrypted = coalesce(private.encrypt_api_key(new_key), api_key_encrypted),
           state = case when p_operation = 'reactivate' then 'installing' else state end,
           updated_at = now()
     where id = svc.id;
    if p_operation = 'reactivate' then
      perform private.request_install(svc.id, jsonb_build_object('reused', true));
    end if;
  else
    raise exception 'Unknown operation: %', p_operation;
  end if;
  return private.service_json(svc.id);
end
$$;

create or replace function public.extend_service_expiration(p_service_id uuid, p_product_id uuid, p_months integer)
returns jsonb
language plpgsql security definer set search_path = ''
as $$
declare
  uid uuid := auth.uid();
  svc private.services;
  current_product public.products;
  product public.products;
  units integer;
  total numeric;
  v_balance numeric;
  new_renews_at timestamptz;
begin
  perform private.require_aal2_if_enrolled();
  if uid is null or not private.is_live_user(uid) then
    raise exception 'You must be logged in' using errcode = '42501';
  end if;
  if p_product_id is null then
    raise exception 'Please select a product to extend with';
  end if;
  select c.balance into v_balance from public.user_credits c where c.user_id = uid for update;
  select * into svc from private.services where id = p_service_id and user_id = uid;
  if svc.id is null then
    raise exception 'Service not found' using errcode = 'PT404';
  end if;
  if svc.state in ('deleting', 'deleted') then
    raise exception 'Service is currently being deleted...';
  end if;
  if svc.state = 'installing' then
    raise exception 'Cannot extend, service is currently installing...';
  end if;
  -- Its period has not started: nothing to extend until the node runs.
  if svc.state = 'failed' then
    raise exception 'Cannot extend, installation failed';
  end if;
  if svc.renews_at is null then
    raise exception 'A one-time service cannot be extended';
  end if;
  select * into current_product from public.products where id = svc.product_id;
  -- Compatible: active, renewing, of the same base product (spec §5).
  select * into product from public.products
   where id = p_product_id and is_active and renew_interval is not null
     and base_product_code is not distinct from current_product.base_product_code
     and current_product.id is not null;
  if product.id is null then
    raise exception 'This product cannot extend this service';
  end if;
  if product.renew_interval = '1 MONTH' then
    if p_months is null or p_months < 1 or p_months > 6 then
      raise exception 'Choose 1 to 6 months';
    end if;
    units := p_months;
  else
    if p_months is null or p_months not in (3, 6) then
      raise exception 'Choose 3 or 6 months';
    end if;
    units := p_months / 3;
  end if;
  total := product.price * units;
  if total > v_balance then
    raise exception 'Insufficient Credits' using detail = format('You need %s but only have %s', private.money(total), private.money(v_balance));
  end if;
  new_renews_at := greatest(now(), svc.renews_at) + make_interval(months => p_months);
  if total > 0 then
    perform private.post_transaction(uid, -total, 'service_charge',
      format('Service extension for %s (%s, %s months)', svc.name, product.name, p_months), svc.id,
      'service-extend:' || gen_random_uuid()::text);
  end if;
  update private.services
     set renews_at = new_renews_at, product_id = product.id,
         state = case when state = 'expired' then 'active' else state end, updated_at = now()
   where id = svc.id;
  perform private.record_service_event(svc.id, 'extended', jsonb_build_object('months', p_months, 'renews_at', new_renews_at));
  if svc.state = 'expired' then
    perform private.record_service_event(svc.id, 'start_requested');
    perform nodeharbor.enqueue_job('start-service', jsonb_build_object('serviceId', svc.id));
  end if;
  return private.service_json(svc.id) || jsonb_build_object('charged', total, 'months', p_months);
end
$$;

create or replace function public.retry_service_installation(p_service_id uuid) returns jsonb
language plpgsql security definer set search_path = ''
as $$
declare
  uid uuid := auth.uid();
  svc private.services;
  by_admin boolean;
begin
  perform private.require_aal2_if_enrolled();
  if uid is null or not private.is_live_user(uid) then
    raise exception 'You must be logged in' using errcode = '42501';
  end if;
  by_admin := private.is_admin(uid);
  select * into svc from private.services where id = p_service_id and (user_id = uid or by_admin);
  if svc.id is null then
    raise exception 'Service not found' using errcode = 'PT404';
  end if;
  -- The owner's credit row first, as every writer of services does, then the service.
  perform 1 from public.user_credits where user_id = svc.user_id for update;
  select * into svc from private.services where id = p_service_id for update;
  if svc.state <> 'failed' then
    raise exception 'Only a service whose installation failed can be retried' using errcode = 'PT409';
  end if;
  update private.services set state = 'installing' where id = svc.id;
  perform private.record_service_event(svc.id, 'retry_requested',
    jsonb_build_object('by', case when svc.user_id = uid then 'owner' else 'admin' end));
  perform nodeharbor.enqueue_job('install-service', jsonb_build_object('serviceId', svc.id));
  return private.service_json(svc.id);
end
$$;

create or replace function public.delete_own_account(p_email text) returns void
language plpgsql security definer set search_path = ''
as $$
declare
  uid uuid := auth.uid();
  account auth.users;
  svc_id uuid;
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

  for svc_id in
    select id from private.services where user_id = uid and state in ('active', 'expired', 'failed')
  loop
    update private.services set state = 'deleting' where id = svc_id;
    perform private.record_service_event(svc_id, 'delete_requested', jsonb_build_object('reason', 'account_deleted'));
    perform nodeharbor.enqueue_job('uninstall-service', jsonb_build_object('serviceId', svc_id));
  end loop;
  -- Nothing of a closed account is reused or reactivated: require_user refuses it. The keys are
  -- the person's secrets: an empty one replaces each.
  update private.services
     set description = null, api_key_encrypted = private.encrypt_api_key(''), updated_at = now()
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

create or replace function public.get_user_stats(p_search text default null, p_limit integer default 50, p_offset integer default 0)
returns table (
  user_id uuid, email text, full_name text, active_services_count integer,
  last_sign_in_at timestamptz, created_at timestamptz, total_count integer
)
language plpgsql stable security definer set search_path = ''
as $$
#variable_conflict use_column
declare
  pattern text;
  total integer;
begin
  perform private.require_aal2_if_enrolled();
  if not private.is_admin(auth.uid()) then
    raise exception 'Only admins can list users' using errcode = '42501';
  end if;
  if p_limit is null or p_limit < 1 or p_limit > 500 or p_offset is null or p_offset < 0 then
    raise exception 'p_limit must be 1 to 500 and p_offset at least 0';
  end if;
  if coalesce(p_search, '') <> '' then
    pattern := '%' || replace(replace(replace(p_search, '\', '\\'), '%', '\%'), '_', '\_') || '%';
    select count(*) into total from auth.users u where u.deleted_at is null and u.email ilike pattern;
  else
    select c.n into total from private.user_count c;
  end if;
  -- The page first (limit over the index, no search), then its names and counts: one row each.
  return query
    select p.id, p.email::text, pr.full_name,
           (select count(*)::int from private.services s
             where s.user_id = p.id and s.state in ('installing', 'active')),
           p.last_sign_in_at, p.created_at, total
      from (select u.id, u.email, u.last_sign_in_at, u.created_at
              from auth.users u
             where u.deleted_at is null and (pattern is null or u.email ilike pattern)
             order by u.created_at desc, u.id
             limit p_limit offset p_offset) p
      left join public.profiles pr on pr.id = p.id
     order by p.created_at desc, p.id;
end
$$;

create or replace function public.update_user_credits(
  p_user_id uuid, p_amount numeric, p_transaction_type text, p_description text,
  p_service_id uuid default null, p_idempotency_key text default null
) returns boolean
language plpgsql security definer set search_path = ''
as $$
declare
  trusted boolean := auth.role() = 'service_role';
begin
  perform private.require_aal2_if_enrolled();
  if not trusted and (auth.uid() is null or auth.uid() <> p_user_id or not private.is_live_user(auth.uid())) then
    raise exception 'You can only change your own balance' using errcode = '42501';
  end if;
  if not trusted and p_amount > 0 then
    raise exception 'Only the service can add credit' using errcode = '42501';
  end if;
  if p_amount is null or p_amount = 0 or p_amount <> round(p_amount, 2) or abs(p_amount) >= 10000000000 then
    raise exception 'The amount must be a non-zero number of cents';
  end if;
  if p_transaction_type is null or p_transaction_type not in ('purchase', 'service_charge', 'refund', 'admin_credit') then
    raise exception 'Unknown transaction type: %', p_transaction_type;
  end if;
  if not trusted and p_transaction_type <> 'service_charge' then
    raise exception 'A user can only record a service_charge' using errcode = '42501';
  end if;
  if coalesce(trim(p_description), '') = '' or char_length(p_description) > 500 then
    raise exception 'A description of 1 to 500 characters is required';
  end if;
  if p_idempotency_key is not null and (p_idempotency_key = '' or char_length(p_idempotency_key) > 200) then
    raise exception 'p_idempotency_key must be 1 to 200 characters';
  end if;
  if p_service_id is not null and not exists (select 1 from private.services where id = p_service_id and user_id = p_user_id) then
    raise exception 'No such service';
  end if;
  perform 1 from public.user_credits where user_id = p_user_id for update;
  if not found then
    raise exception 'No such user';
  end if;
  -- A user's keys live in their own namespace, so they can never collide with the server's.
  return private.post_transaction(p_user_id, p_amount, p_transaction_type, p_description, p_service_id,
    coalesce(case when trusted then p_idempotency_key else 'user:' || p_idempotency_key end,
             'manual:' || gen_random_uuid()::text));
end
$$;

create or replace function public.is_user_admin(user_uuid uuid) returns boolean
language plpgsql stable security definer set search_path = ''
as $$
begin
  perform private.require_aal2_if_enrolled();
  return private.may_ask_about(user_uuid) and private.is_admin(user_uuid);
end
$$;

create or replace function public.has_dev_access(user_uuid uuid) returns boolean
language plpgsql stable security definer set search_path = ''
as $$
begin
  perform private.require_aal2_if_enrolled();
  return private.may_ask_about(user_uuid)
     and (private.is_admin(user_uuid) or exists (select 1 from public.dev_access_users where user_id = user_uuid));
end
$$;

-- ---------------------------------------------------------------- grants nothing uses

-- Reads go through RLS; every write but a profile's own columns goes through the functions above.
revoke insert, update, delete, truncate, references, trigger
  on public.admin_users, public.contact_messages, public.credit_purchases, public.credit_transactions,
     public.dev_access_users, public.products, public.user_credits, public.service_events
  from anon, authenticated;
revoke insert, delete, truncate, references, trigger on public.profiles from anon, authenticated;
-- Tables created later: TRUNCATE, REFERENCES and TRIGGER are never the API's.
alter default privileges in schema public revoke truncate, references, trigger on tables from anon, authenticated;
