-- Refinements of 0002/0003: the encryption key never reaches an API role, the create checks run in
-- the exact order of spec §5 under the credit lock, retried credit changes count once, and the
-- worker's side of the service lifecycle (install, delete, renew, expire) is callable by the
-- service role alone, so a worker can drive it through the API on a hosted project too.

-- ---------------------------------------------------------------- the API key, decrypted for its owner only

-- The services view used to call private.encryption_key() as the caller, so the API roles could
-- execute it. Now decryption happens inside this function, and only for the caller's own rows.
create function private.decrypt_api_key(p_user_id uuid, p_encrypted bytea) returns text
language sql stable security definer set search_path = ''
as $$
  select extensions.pgp_sym_decrypt(p_encrypted, private.encryption_key())
   where p_user_id = auth.uid()
$$;
revoke all on function private.decrypt_api_key(uuid, bytea) from public;
grant execute on function private.decrypt_api_key(uuid, bytea) to authenticated;

create or replace view public.services with (security_barrier) as
select s.id, s.user_id, s.name, s.description,
       private.decrypt_api_key(s.user_id, s.api_key_encrypted) as api_key,
       s.product_id, s.created_at, s.renews_at, s.expired, s.is_installed, s.is_deleting, s.is_deleted
  from private.services s
 where s.user_id = auth.uid();

revoke execute on function private.encryption_key() from public, anon, authenticated, service_role;

-- ---------------------------------------------------------------- validation

-- JavaScript's \s, spelled out: PostgreSQL's own \s depends on the locale, and the forms
-- (src/shared/validation.ts) must give the same answer as the database.
create or replace function private.service_name_error(p_name text) returns text
language sql immutable set search_path = ''
as $$
  select case
    when char_length(p_name) < 3 then 'Service name must be at least 3 characters long'
    when char_length(p_name) > 16 then 'Service name must be no more than 16 characters long'
    when p_name ~ '[\t\n\v\f\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]' then 'Service name cannot contain spaces'
    when p_name !~ '^[A-Za-z0-9_-]+$' then 'Service name can only contain letters, numbers, hyphens, and underscores'
    when p_name ~ '^[-_]' or p_name ~ '[-_]$' then 'Service name cannot start or end with a hyphen or underscore'
  end
$$;

create or replace function private.api_key_error(p_key text, p_properties text) returns text
language plpgsql immutable set search_path = ''
as $$
declare
  props jsonb := private.parse_properties(p_properties);
  rule jsonb := props -> 'data_validation';
begin
  if rule is null or jsonb_typeof(rule) <> 'object' then
    return case
      when char_length(p_key) < 44 or char_length(p_key) > 46 then 'API key must be 44-46 characters long'
      when p_key ~ '[\t\n\v\f\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]' then 'API key cannot contain spaces'
      when right(p_key, 1) <> '=' then 'API key must end with "="'
      when p_key !~ '^[A-Za-z0-9+/=]+$' then 'API key contains invalid characters'
    end;
  end if;
  if rule ? 'minimum_length' and char_length(p_key) < (rule ->> 'minimum_length')::int then
    return format('API key must be at least %s characters long', rule ->> 'minimum_length');
  end if;
  if rule ? 'maximum_length' and char_length(p_key) > (rule ->> 'maximum_length')::int then
    return format('API key must be at most %s characters long', rule ->> 'maximum_length');
  end if;
  if rule ? 'valid_chars' and p_key !~ ('^[' || (rule ->> 'valid_chars') || ']*$') then
    return coalesce(nullif(props ->> 'data_description', ''), 'API key contains invalid characters');
  end if;
  if rule ? 'ends_with' and right(p_key, char_length(rule ->> 'ends_with')) <> (rule ->> 'ends_with') then
    return format('API key must end with "%s"', rule ->> 'ends_with');
  end if;
  return null;
end
$$;

-- Spec §5 step 6 says "Please provide a valid API key"; the rule that failed goes in the details.
create function private.check_api_key(p_key text, p_properties text) returns void
language plpgsql stable set search_path = ''
as $$
declare
  problem text := private.api_key_error(p_key, p_properties);
begin
  if problem is not null then
    raise exception 'Please provide a valid API key' using detail = problem;
  end if;
end
$$;

-- ---------------------------------------------------------------- the ledger

/* As in 0003, and a key already counted answers true before the balance is looked at: a retried
   charge that succeeded the first time must not report "insufficient" the second time. */
create or replace function private.post_transaction(
  p_user_id uuid, p_amount numeric, p_type text, p_description text, p_service_id uuid, p_idempotency_key text
) returns boolean
language plpgsql security definer set search_path = ''
as $$
declare
  inserted int;
begin
  if exists (select 1 from public.credit_transactions where user_id = p_user_id and idempotency_key = p_idempotency_key) then
    return true;
  end if;
  if (select balance from public.user_credits where user_id = p_user_id) + p_amount < 0 then
    return false;
  end if;
  insert into public.credit_transactions (user_id, type, description, amount, service_id, idempotency_key)
  values (p_user_id, p_type, p_description, p_amount, p_service_id, p_idempotency_key)
  on conflict (user_id, idempotency_key) do nothing;
  get diagnostics inserted = row_count;
  if inserted = 1 then
    update public.user_credits set balance = balance + p_amount, updated_at = now() where user_id = p_user_id;
  end if;
  return true;
end
$$;
revoke all on function private.post_transaction(uuid, numeric, text, text, uuid, text) from public;

-- A new optional argument: a retried call with the same key is counted once. Users may only
-- record a service charge against themselves; everything else is the service role's.
drop function public.update_user_credits(uuid, numeric, text, text, uuid);
create function public.update_user_credits(
  p_user_id uuid, p_amount numeric, p_transaction_type text, p_description text, p_service_id uuid default null,
  p_idempotency_key text default null
) returns boolean
language plpgsql security definer set search_path = ''
as $$
declare
  trusted boolean := auth.role() = 'service_role';
begin
  if not trusted and (auth.uid() is null or auth.uid() <> p_user_id) then
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

-- ---------------------------------------------------------------- creating a service

create or replace function public.create_service_securely(
  p_name text, p_description text, p_api_key text, p_product_id uuid
) returns jsonb
language plpgsql security definer set search_path = ''
as $$
declare
  uid uuid := private.require_user();
  product public.products;
  problem text;
  reuse_id uuid;
  new_id uuid;
begin
  -- One creation at a time per user: the credit row is the lock, so every check below, the
  -- uniqueness of the name included, sees the truth and still runs in the order of spec §5.
  perform 1 from public.user_credits where user_id = uid for update;

  if coalesce(trim(p_name), '') = '' then
    raise exception 'Service name is required';
  end if;
  problem := private.service_name_error(p_name);
  if problem is not null then
    raise exception '%', problem;
  end if;
  if exists (select 1 from private.services where user_id = uid and not is_deleted and lower(name) = lower(p_name)) then
    raise exception 'A service with this name already exists';
  end if;
  if coalesce(p_api_key, '') = '' then
    raise exception 'API key is required';
  end if;
  select * into product from public.products where id = p_product_id and is_active;
  if product.id is null then
    raise exception 'Please select a service plan';
  end if;
  perform private.check_api_key(p_api_key, product.properties);
  if char_length(p_description) > 500 then
    raise exception 'The description must be at most 500 characters';
  end if;

  -- An unused purchased service of this product comes first: earliest renewal first, none last.
  select s.id into reuse_id from private.services s
   where s.user_id = uid and s.product_id = p_product_id and s.is_deleted and not s.expired
     and (s.renews_at is null or s.renews_at > now())
   order by s.renews_at asc nulls last, s.created_at
   limit 1;
  if reuse_id is not null then
    update private.services
       set name = p_name, description = null,
           api_key_encrypted = extensions.pgp_sym_encrypt(p_api_key, private.encryption_key()),
           is_deleted = false, is_deleting = false, is_installed = false, updated_at = now()
     where id = reuse_id;
    return private.service_json(reuse_id) || jsonb_build_object('reused', true, 'charged', 0);
  end if;

  new_id := gen_random_uuid();
  if product.price > 0 and not private.post_transaction(
      uid, -product.price, 'service_charge', format('Service creation for %s (%s)', p_name, product.name), new_id,
      'service-create:' || new_id::text) then
    raise exception 'Insufficient funds and no reusable services available. Please purchase more credits.';
  end if;
  insert into private.services (id, user_id, name, description, api_key_encrypted, product_id, renews_at)
  values (new_id, uid, p_name, nullif(trim(p_description), ''),
          extensions.pgp_sym_encrypt(p_api_key, private.encryption_key()), p_product_id,
          case when product.renew_interval is null then null else now() + product.renew_interval::interval end);
  return private.service_json(new_id) || jsonb_build_object('reused', false, 'charged', product.price);
end
$$;

-- ---------------------------------------------------------------- managing a service

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
  if uid is null then
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
    if svc.is_deleted or svc.is_deleting then
      raise exception 'Service is currently being deleted...';
    end if;
    if not svc.is_installed then
      raise exception 'Cannot delete, service is currently installing...';
    end if;
    update private.services set is_deleting = true, updated_at = now() where id = svc.id;

  elsif p_operation in ('update', 'reactivate') then
    if p_updates is null or exists (select 1 from jsonb_object_keys(p_updates) k where k not in ('name', 'description', 'api_key')) then
      raise exception 'Only name, description and api_key can be updated';
    end if;
    if exists (select 1 from jsonb_each(p_updates) e where jsonb_typeof(e.value) not in ('string', 'null')) then
      raise exception 'name, description and api_key must be text';
    end if;
    if p_operation = 'reactivate' then
      if not svc.is_deleted or svc.expired or (svc.renews_at is not null and svc.renews_at <= now()) then
        raise exception 'This service cannot be reactivated';
      end if;
    elsif svc.is_deleted or svc.is_deleting then
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
    if exists (select 1 from private.services where user_id = uid and not is_deleted and id <> svc.id and lower(name) = lower(new_name)) then
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
           api_key_encrypted = coalesce(extensions.pgp_sym_encrypt(new_key, private.encryption_key()), api_key_encrypted),
           is_deleted = false,
           is_installed = case when p_operation = 'reactivate' then false else is_installed end,
           updated_at = now()
     where id = svc.id;
  else
    raise exception 'Unknown operation: %', p_operation;
  end if;
  return private.service_json(svc.id);
end
$$;

-- ---------------------------------------------------------------- renewal and expiry

/* Renews one due service: charges its plan's price for the next period and moves renews_at on, or,
   when the balance is short, marks it expired (the worker then stops the node). The ledger key
   is the service and the period it pays for, so a retried or concurrent run charges once.
   Answers 'renewed', 'expired' or 'not_due'. */
create function private.renew_service(p_service_id uuid) returns text
language plpgsql security definer set search_path = ''
as $$
declare
  owner_id uuid;
  svc private.services;
  product public.products;
  next_at timestamptz;
begin
  select user_id into owner_id from private.services where id = p_service_id;
  if owner_id is null then
    return 'not_due';
  end if;
  -- The credit row first, as every other writer does, then the service: no deadlock.
  perform 1 from public.user_credits where user_id = owner_id for update;
  select * into svc from private.services where id = p_service_id for update;
  if svc.is_deleted or svc.is_deleting or svc.expired or svc.renews_at is null or svc.renews_at > now() then
    return 'not_due';
  end if;
  select * into product from public.products where id = svc.product_id;
  if product.id is null or product.renew_interval is null then
    update private.services set expired = true, updated_at = now() where id = svc.id;
    return 'expired';
  end if;
  if product.price > 0 and not private.post_transaction(
      svc.user_id, -product.price, 'service_charge', format('Service renewal for %s (%s)', svc.name, product.name), svc.id,
      'service-renew:' || svc.id::text || ':' || to_char(svc.renews_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US')) then
    update private.services set expired = true, updated_at = now() where id = svc.id;
    return 'expired';
  end if;
  -- The next period follows the last one; after a long outage it starts now, so no dead time is sold.
  next_at := svc.renews_at + product.renew_interval::interval;
  if next_at <= now() then
    next_at := now() + product.renew_interval::interval;
  end if;
  update private.services set renews_at = next_at, updated_at = now() where id = svc.id;
  return 'renewed';
end
$$;

-- ---------------------------------------------------------------- the worker's API, service role only

create function private.require_service_role() returns void
language plpgsql stable set search_path = ''
as $$
begin
  if auth.role() is distinct from 'service_role' then
    raise exception 'Only the service can change the lifecycle of a service' using errcode = '42501';
  end if;
end
$$;

-- Installing → active. True when this call made the change; false when there was nothing to do.
create function public.complete_service_installation(p_service_id uuid) returns boolean
language plpgsql security definer set search_path = ''
as $$
begin
  perform private.require_service_role();
  return coalesce(private.complete_service_installation(p_service_id), false);
end
$$;

-- Deleting → deleted; a deleted service that is not expired becomes reusable (spec §4).
create function public.complete_service_deletion(p_service_id uuid) returns boolean
language plpgsql security definer set search_path = ''
as $$
begin
  perform private.require_service_role();
  return coalesce(private.complete_service_deletion(p_service_id), false);
end
$$;

create function public.renew_service(p_service_id uuid) returns text
language plpgsql security definer set search_path = ''
as $$
begin
  perform private.require_service_role();
  return private.renew_service(p_service_id);
end
$$;

-- The services whose renewal is due, oldest first, for the renewal job to hand to renew_service.
create function public.due_service_renewals(p_limit integer default 100) returns setof uuid
language plpgsql stable security definer set search_path = ''
as $$
begin
  perform private.require_service_role();
  if p_limit is null or p_limit < 1 or p_limit > 1000 then
    raise exception 'p_limit must be 1 to 1000';
  end if;
  return query
    select s.id from private.services s
     where s.renews_at <= now() and not s.expired and not s.is_deleted and not s.is_deleting
     order by s.renews_at
     limit p_limit;
end
$$;

revoke execute on function public.complete_service_installation(uuid), public.complete_service_deletion(uuid),
  public.renew_service(uuid), public.due_service_renewals(integer) from public, anon, authenticated;
grant execute on function public.complete_service_installation(uuid), public.complete_service_deletion(uuid),
  public.renew_service(uuid), public.due_service_renewals(integer) to service_role;

revoke execute on function private.renew_service(uuid), private.require_service_role(), private.check_api_key(text, text)
  from public, anon, authenticated;
