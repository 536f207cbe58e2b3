-- The life of a node, told to its owner and handed to the worker: every step is recorded in
-- public.service_events, and each change that needs the provisioner enqueues its job in the same
-- transaction (0006), so a committed change always has its job and a rolled-back one never does.
-- The functions below are those of 0003/0004 with these additions only.

create table public.service_events (
  id bigserial primary key,
  service_id uuid not null references private.services (id) on delete cascade,
  user_id uuid not null references auth.users (id) on delete cascade,
  event text not null,
  detail jsonb,
  created_at timestamptz not null default now()
);
create index service_events_service_idx on public.service_events (service_id, id);
create index service_events_user_idx on public.service_events (user_id, id desc);
alter table public.service_events enable row level security;
create policy "Users can read their own service events" on public.service_events
  for select to authenticated using (user_id = auth.uid());
-- Written only by the database's own functions and the worker; the API roles may only read.
revoke all on public.service_events from anon, authenticated, service_role;
grant select on public.service_events to authenticated, service_role;

create function private.record_service_event(p_service_id uuid, p_event text, p_detail jsonb default null) returns void
language sql set search_path = ''
as $$
  insert into public.service_events (service_id, user_id, event, detail)
  select s.id, s.user_id, p_event, p_detail from private.services s where s.id = p_service_id
$$;

-- A service (new or reused) waits for its node: the install job follows in this transaction.
create function private.request_install(p_service_id uuid, p_detail jsonb) returns void
language plpgsql set search_path = ''
as $$
begin
  perform private.record_service_event(p_service_id, 'install_requested', p_detail);
  perform nodeharbor.enqueue_job('install-service', jsonb_build_object('serviceId', p_service_id));
end
$$;

-- An expired service's node is stopped, by a job, after this transaction commits.
create function private.expire_node(p_service_id uuid, p_reason text) returns void
language plpgsql set search_path = ''
as $$
begin
  perform private.record_service_event(p_service_id, 'expired', jsonb_build_object('reason', p_reason));
  perform nodeharbor.enqueue_job('stop-service', jsonb_build_object('serviceId', p_service_id));
end
$$;

revoke all on function private.record_service_event(uuid, text, jsonb), private.request_install(uuid, jsonb),
  private.expire_node(uuid, text) from public;

-- ---------------------------------------------------------------- creating, managing, extending

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
    perform private.request_install(reuse_id, jsonb_build_object('reused', true));
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
  perform private.request_install(new_id, jsonb_build_object('reused', false, 'charged', product.price));
  return private.service_json(new_id) || jsonb_build_object('reused', false, 'charged', product.price);
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
  perform private.record_service_event(svc.id, 'extended', jsonb_build_object('months', p_months, 'renews_at', new_renews_at));
  if svc.expired then
    perform private.record_service_event(svc.id, 'start_requested');
    perform nodeharbor.enqueue_job('start-service', jsonb_build_object('serviceId', svc.id));
  end if;
  return private.service_json(svc.id) || jsonb_build_object('charged', total, 'months', p_months);
end
$$;


-- ---------------------------------------------------------------- renewal

create or replace function private.renew_service(p_service_id uuid) returns text
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
    perform private.expire_node(svc.id, 'no renewing plan');
    return 'expired';
  end if;
  if product.price > 0 and not private.post_transaction(
      svc.user_id, -product.price, 'service_charge', format('Service renewal for %s (%s)', svc.name, product.name), svc.id,
      'service-renew:' || svc.id::text || ':' || to_char(svc.renews_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US')) then
    update private.services set expired = true, updated_at = now() where id = svc.id;
    perform private.expire_node(svc.id, 'balance too low');
    return 'expired';
  end if;
  -- The next period follows the last one; after a long outage it starts now, so no dead time is sold.
  next_at := svc.renews_at + product.renew_interval::interval;
  if next_at <= now() then
    next_at := now() + product.renew_interval::interval;
  end if;
  update private.services set renews_at = next_at, updated_at = now() where id = svc.id;
  perform private.record_service_event(svc.id, 'renewed',
    jsonb_build_object('charged', product.price, 'renews_at', next_at));
  return 'renewed';
end
$$;


-- ---------------------------------------------------------------- the worker's side, now recorded

create or replace function private.complete_service_installation(p_service_id uuid) returns boolean
language plpgsql security definer set search_path = ''
as $$
begin
  update private.services set is_installed = true, updated_at = now()
   where id = p_service_id and not is_installed and not is_deleted and not is_deleting;
  if not found then
    return null;
  end if;
  perform private.record_service_event(p_service_id, 'installed');
  return true;
end
$$;

create or replace function private.complete_service_deletion(p_service_id uuid) returns boolean
language plpgsql security definer set search_path = ''
as $$
begin
  update private.services set is_deleting = false, is_deleted = true, updated_at = now()
   where id = p_service_id and is_deleting;
  if not found then
    return null;
  end if;
  perform private.record_service_event(p_service_id, 'deleted');
  return true;
end
$$;

revoke all on function private.complete_service_installation(uuid), private.complete_service_deletion(uuid),
  private.renew_service(uuid) from public, anon, authenticated;
