-- The remote procedures of spec §7 and the rules of spec §5, enforced in the database. Messages are
-- the spec's, word for word, and match src/shared/validation.ts (a test runs both on one table).
-- Every SECURITY DEFINER function sets search_path = '' and checks its caller itself.

-- ---------------------------------------------------------------- validation

create function private.service_name_error(p_name text) returns text
language sql immutable set search_path = ''
as $$
  select case
    when char_length(p_name) < 3 then 'Service name must be at least 3 characters long'
    when char_length(p_name) > 16 then 'Service name must be no more than 16 characters long'
    when p_name ~ '\s' then 'Service name cannot contain spaces'
    when p_name !~ '^[A-Za-z0-9_-]+$' then 'Service name can only contain letters, numbers, hyphens, and underscores'
    when p_name ~ '^[-_]' or p_name ~ '[-_]$' then 'Service name cannot start or end with a hyphen or underscore'
  end
$$;

-- A product's properties JSON text, or null when absent or not a JSON object (spec §5).
create function private.parse_properties(p_properties text) returns jsonb
language plpgsql immutable set search_path = ''
as $$
begin
  if p_properties is null then
    return null;
  end if;
  if jsonb_typeof(p_properties::jsonb) = 'object' then
    return p_properties::jsonb;
  end if;
  return null;
exception when others then
  return null;
end
$$;

create function private.api_key_error(p_key text, p_properties text) returns text
language plpgsql immutable set search_path = ''
as $$
declare
  props jsonb := private.parse_properties(p_properties);
  rule jsonb := props -> 'data_validation';
begin
  if rule is null or jsonb_typeof(rule) <> 'object' then
    return case
      when char_length(p_key) < 44 or char_length(p_key) > 46 then 'API key must be 44-46 characters long'
      when p_key ~ '\s' then 'API key cannot contain spaces'
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

create function private.money(p_amount numeric) returns text
language sql immutable set search_path = ''
as $$ select '$' || to_char(p_amount, 'FM999999999990.00') $$;

-- ---------------------------------------------------------------- internal helpers

create function private.service_json(p_id uuid) returns jsonb
language sql stable security definer set search_path = ''
as $$
  select jsonb_build_object(
    'id', s.id, 'user_id', s.user_id, 'name', s.name, 'description', s.description,
    'api_key', extensions.pgp_sym_decrypt(s.api_key_encrypted, private.encryption_key()),
    'product_id', s.product_id, 'created_at', s.created_at, 'renews_at', s.renews_at,
    'expired', s.expired, 'is_installed', s.is_installed, 'is_deleting', s.is_deleting, 'is_deleted', s.is_deleted)
  from private.services s where s.id = p_id
$$;
revoke all on function private.service_json(uuid) from public;

/* Records one ledger row and moves the balance with it, in the caller's transaction. The credit row
   must already be locked by the caller. Returns false (and changes nothing) when the balance
   would go below zero. */
create function private.post_transaction(
  p_user_id uuid, p_amount numeric, p_type text, p_description text, p_service_id uuid, p_idempotency_key text
) returns boolean
language plpgsql security definer set search_path = ''
as $$
declare
  inserted int;
begin
  if (select balance from public.user_credits where user_id = p_user_id) + p_amount < 0 then
    return false;
  end if;
  insert into public.credit_transactions (user_id, type, description, amount, service_id, idempotency_key)
  values (p_user_id, p_type, p_description, p_amount, p_service_id, p_idempotency_key)
  on conflict (user_id, idempotency_key) do nothing;
  get diagnostics inserted = row_count;
  -- Already counted under this key: succeed without counting twice.
  if inserted = 1 then
    update public.user_credits set balance = balance + p_amount, updated_at = now() where user_id = p_user_id;
  end if;
  return true;
end
$$;
revoke all on function private.post_transaction(uuid, numeric, text, text, uuid, text) from public;

create function private.require_user() returns uuid
language plpgsql stable set search_path = ''
as $$
begin
  if auth.uid() is null then
    raise exception 'You must be logged in to create a service' using errcode = '42501';
  end if;
  return auth.uid();
end
$$;

-- ---------------------------------------------------------------- roles

-- One may ask about oneself; only an admin may ask about someone else.
create function private.may_ask_about(p_user_id uuid) returns boolean
language sql stable security definer set search_path = ''
as $$ select auth.uid() is not null and (p_user_id = auth.uid() or private.is_admin(auth.uid())) $$;

create function public.is_user_admin(user_uuid uuid) returns boolean
language sql stable security definer set search_path = ''
as $$ select private.may_ask_about(user_uuid) and private.is_admin(user_uuid) $$;

create function public.has_dev_access(user_uuid uuid) returns boolean
language sql stable security definer set search_path = ''
as $$
  select private.may_ask_about(user_uuid)
     and (private.is_admin(user_uuid) or exists (select 1 from public.dev_access_users where user_id = user_uuid))
$$;

-- ---------------------------------------------------------------- admin

create function public.get_user_stats(p_search text default null, p_limit integer default 50, p_offset integer default 0)
returns table (
  user_id uuid, email text, full_name text, active_services_count integer,
  last_sign_in_at timestamptz, created_at timestamptz, total_count integer
)
language plpgsql stable security definer set search_path = ''
as $$
#variable_conflict use_column
begin
  if not private.is_admin(auth.uid()) then
    raise exception 'Only admins can list users' using errcode = '42501';
  end if;
  if p_limit is null or p_limit < 1 or p_limit > 500 or p_offset is null or p_offset < 0 then
    raise exception 'p_limit must be 1 to 500 and p_offset at least 0';
  end if;
  return query
    with matched as (
      select u.id, u.email::text as email, u.last_sign_in_at, u.created_at
        from auth.users u
       where p_search is null or p_search = '' or u.email ilike '%' || replace(replace(replace(p_search, '\', '\\'), '%', '\%'), '_', '\_') || '%'
    ), page as (
      select m.*, count(*) over () as total from matched m order by m.created_at desc, m.id limit p_limit offset p_offset
    )
    select p.id, p.email, pr.full_name,
           (select count(*)::int from private.services s
             where s.user_id = p.id and not s.is_deleted and not s.is_deleting and not s.expired),
           p.last_sign_in_at, p.created_at, p.total::int
      from page p left join public.profiles pr on pr.id = p.id
     order by p.created_at desc, p.id;
end
$$;

-- ---------------------------------------------------------------- credits

create function public.update_user_credits(
  p_user_id uuid, p_amount numeric, p_transaction_type text, p_description text, p_service_id uuid default null
) returns boolean
language plpgsql security definer set search_path = ''
as $$
declare
  trusted boolean := auth.role() = 'service_role';
begin
  if not trusted and (auth.uid() is null or auth.uid() <> p_user_id) then
    raise exception 'You can only change your own balance' using errcode = '42501';
  end if;
  -- Raising a balance is for the server (payments, refunds, admins), never for the user.
  if not trusted and p_amount > 0 then
    raise exception 'Only the service can add credit' using errcode = '42501';
  end if;
  if p_amount is null or p_amount = 0 or p_amount <> round(p_amount, 2) then
    raise exception 'The amount must be a non-zero number of cents';
  end if;
  if p_transaction_type is null or p_transaction_type not in ('purchase', 'service_charge', 'refund', 'admin_credit') then
    raise exception 'Unknown transaction type: %', p_transaction_type;
  end if;
  if coalesce(trim(p_description), '') = '' then
    raise exception 'A description is required';
  end if;
  perform 1 from public.user_credits where user_id = p_user_id for update;
  if not found then
    raise exception 'No such user';
  end if;
  return private.post_transaction(p_user_id, p_amount, p_transaction_type, p_description, p_service_id,
                                  'manual:' || gen_random_uuid()::text);
end
$$;

-- ---------------------------------------------------------------- services

create function public.get_unused_purchased_services(p_user_id uuid)
returns table (
  id uuid, name text, description text, product_id uuid, product_name text, product_price numeric,
  created_at timestamptz, renews_at timestamptz
)
language plpgsql stable security definer set search_path = ''
as $$
#variable_conflict use_column
begin
  if auth.uid() is null or auth.uid() <> p_user_id then
    raise exception 'You can only list your own services' using errcode = '42501';
  end if;
  return query
    select s.id, s.name, s.description, s.product_id, p.name, p.price, s.created_at, s.renews_at
      from private.services s join public.products p on p.id = s.product_id
     where s.user_id = p_user_id and s.is_deleted and not s.expired
       and (s.renews_at is null or s.renews_at > now())
     order by s.renews_at asc nulls last, s.created_at;
end
$$;

create function public.create_service_securely(
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
  -- The checks of spec §5, in its order.
  if coalesce(trim(p_name), '') = '' then
    raise exception 'Service name is required';
  end if;
  problem := private.service_name_error(p_name);
  if problem is not null then
    raise exception '%', problem;
  end if;
  if coalesce(p_api_key, '') = '' then
    raise exception 'API key is required';
  end if;
  select * into product from public.products where id = p_product_id and is_active;
  if product.id is null then
    raise exception 'Please select a service plan';
  end if;
  problem := private.api_key_error(p_api_key, product.properties);
  if problem is not null then
    raise exception '%', problem;
  end if;

  -- One creation at a time per user: the credit row is the lock, so checks below see the truth.
  perform 1 from public.user_credits where user_id = uid for update;
  if exists (select 1 from private.services where user_id = uid and not is_deleted and lower(name) = lower(p_name)) then
    raise exception 'A service with this name already exists';
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

create function public.manage_service_operation(p_service_id uuid, p_operation text, p_updates jsonb default null)
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
    if p_operation = 'reactivate' then
      if not svc.is_deleted or svc.expired or (svc.renews_at is not null and svc.renews_at <= now()) then
        raise exception 'This service cannot be reactivated';
      end if;
    elsif svc.is_deleted or svc.is_deleting then
      raise exception 'Service is currently being deleted...';
    end if;
    new_name := coalesce(p_updates ->> 'name', svc.name);
    problem := private.service_name_error(new_name);
    if problem is not null then
      raise exception '%', problem;
    end if;
    if exists (select 1 from private.services where user_id = uid and not is_deleted and id <> svc.id and lower(name) = lower(new_name)) then
      raise exception 'A service with this name already exists';
    end if;
    new_key := p_updates ->> 'api_key';
    if new_key is not null then
      select properties into props from public.products where id = svc.product_id;
      problem := private.api_key_error(new_key, props);
      if problem is not null then
        raise exception '%', problem;
      end if;
    elsif p_operation = 'reactivate' then
      raise exception 'API key is required';
    end if;
    update private.services
       set name = new_name,
           description = case when p_operation = 'reactivate' then nullif(trim(p_updates ->> 'description'), '')
                              when p_updates ? 'description' then nullif(trim(p_updates ->> 'description'), '')
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

create function public.extend_service_expiration(p_service_id uuid, p_product_id uuid, p_months integer)
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
  if uid is null then
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
  if svc.is_deleted or svc.is_deleting then
    raise exception 'Service is currently being deleted...';
  end if;
  if not svc.is_installed then
    raise exception 'Cannot extend, service is currently installing...';
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
     set renews_at = new_renews_at, product_id = product.id, expired = false, updated_at = now()
   where id = svc.id;
  return private.service_json(svc.id) || jsonb_build_object('charged', total, 'months', p_months);
end
$$;

-- ---------------------------------------------------------------- the worker's side of the lifecycle

-- Called by the worker on the owner connection, never through the API.
create function private.complete_service_installation(p_service_id uuid) returns boolean
language sql security definer set search_path = ''
as $$
  update private.services set is_installed = true, updated_at = now()
   where id = p_service_id and not is_installed and not is_deleted and not is_deleting
  returning true
$$;

create function private.complete_service_deletion(p_service_id uuid) returns boolean
language sql security definer set search_path = ''
as $$
  update private.services set is_deleting = false, is_deleted = true, updated_at = now()
   where id = p_service_id and is_deleting
  returning true
$$;

revoke all on function private.complete_service_installation(uuid), private.complete_service_deletion(uuid) from public;

-- Nothing in private is callable through the API roles, except what policies and the services
-- view evaluate as the caller. (The public RPCs above each check their caller themselves.)
revoke execute on all functions in schema private from public, anon, authenticated;
grant execute on function private.is_admin(uuid), private.encryption_key() to authenticated;
