-- Nodes that really run (issue 14, decision 009). A service's life is one state instead of four
-- booleans, and every change of state is checked in one place, the trigger below: no function can
-- move a service along a path that is not in its table. The spec's booleans (is_installed,
-- is_deleting, is_deleted, expired) are derived from the state in private.service_rows, which the
-- API's view and private.service_json both read. A failed installation is a state of its own, with
-- the engine's reason, and can be retried. The paid period counts from the moment the node first
-- runs: the time a service spends installing or failed is given back on its renewal date.
-- Products say how their node runs (image, limits, pool): a new plan or image is data.
-- The functions below are those of 0007, 0011, 0012 and 0013, changed only where they read or
-- write the state.

-- ---------------------------------------------------------------- products: how the node runs

alter table public.products
  add column node_image text check (node_image is null or node_image ~ '^[a-z0-9][a-z0-9._/:@-]{0,254}$'),
  add column node_cpus numeric(6, 2) not null default 1 check (node_cpus > 0 and node_cpus <= 64),
  add column node_memory_mb integer not null default 512 check (node_memory_mb >= 16 and node_memory_mb <= 262144),
  -- Run only on Swarm hosts labelled nodeharbor.pool=<pool>; null: anywhere.
  add column node_pool text check (node_pool is null or node_pool ~ '^[A-Za-z0-9][A-Za-z0-9._-]{0,62}$');

update public.products
   set node_image = case base_product_code when 'TOWNSTAR' then 'nodeharbor/townstar-node:1'
                                          when 'MASTERNODE' then 'nodeharbor/playa3ull-masternode:1' end,
       node_cpus = case base_product_code when 'TOWNSTAR' then 1 else 0.5 end,
       node_memory_mb = case base_product_code when 'TOWNSTAR' then 1024 else 512 end
 where node_image is null;

-- ---------------------------------------------------------------- the state

-- suspended is reserved for suspension before termination (the money issue): nothing moves a
-- service there yet, so the table of transitions has no path to it.
create type public.service_state as enum ('installing', 'active', 'failed', 'suspended', 'expired', 'deleting', 'deleted');

alter table private.services
  add column state public.service_state not null default 'installing',
  add column state_changed_at timestamptz not null default now(),
  -- The engine's reason, while the state is failed.
  add column provisioning_error text,
  -- Since when the service has been waiting for its node (installing, then maybe failed): this
  -- time is added to renews_at once the node runs or the service is deleted, so it is never sold.
  add column unbilled_since timestamptz default now();

update private.services
   set state = case when is_deleted then 'deleted' when is_deleting then 'deleting' when expired then 'expired'
                    when not is_installed then 'installing' else 'active' end::public.service_state,
       state_changed_at = updated_at,
       unbilled_since = case when not is_installed and not is_deleted and not is_deleting then now() end;

create table private.service_transitions (
  from_state public.service_state not null,
  to_state public.service_state not null,
  primary key (from_state, to_state)
);
alter table private.service_transitions enable row level security;
revoke all on private.service_transitions from public, anon, authenticated, service_role;
insert into private.service_transitions (from_state, to_state) values
  ('installing', 'active'),   -- the node has run for the settle window
  ('installing', 'failed'),   -- it could not run: the engine's reason is kept
  ('failed', 'installing'),   -- retried by its owner or an admin
  ('failed', 'deleting'),
  ('active', 'expired'),      -- not renewed: the node is stopped
  ('active', 'deleting'),
  ('expired', 'active'),      -- extended: the node runs again
  ('expired', 'deleting'),
  ('deleting', 'deleted'),
  ('deleted', 'installing');  -- an unused purchased service, reused

create function private.check_service_transition() returns trigger
language plpgsql set search_path = ''
as $$
begin
  if not exists (select 1 from private.service_transitions where from_state = old.state and to_state = new.state) then
    raise exception 'A service cannot go from % to %', old.state, new.state using errcode = '55000';
  end if;
  new.state_changed_at := now();
  new.updated_at := now();
  if new.state = 'installing' and old.state <> 'failed' then
    new.unbilled_since := now();
  elsif new.state in ('active', 'deleting') and old.state in ('installing', 'failed') then
    new.renews_at := new.renews_at + coalesce(now() - old.unbilled_since, interval '0');
    new.unbilled_since := null;
  end if;
  if new.state <> 'failed' then
    new.provisioning_error := null;
  end if;
  return new;
end
$$;
revoke all on function private.check_service_transition() from public;
create trigger services_state_transition before update of state on private.services
  for each row when (old.state is distinct from new.state) execute function private.check_service_transition();

-- ---------------------------------------------------------------- the booleans, derived

drop view public.services;
drop index if exists private.services_user_name_key;
drop index if exists private.services_renews_at_idx;
alter table private.services drop column expired, drop column is_installed, drop column is_deleting, drop column is_deleted;
create unique index services_user_name_key on private.services (user_id, lower(name)) where state <> 'deleted';
create index services_renews_at_idx on private.services (renews_at) where state = 'active';

-- The one place the spec's booleans come from. A failed service is not installed (older clients
-- show it as installing); a suspended one is shown as expired.
create view private.service_rows as
select s.id, s.user_id, s.name, s.description, s.api_key_encrypted, s.product_id, s.created_at, s.renews_at,
       s.state in ('expired', 'suspended') as expired,
       s.state not in ('installing', 'failed') as is_installed,
       s.state = 'deleting' as is_deleting,
       s.state = 'deleted' as is_deleted,
       s.state, s.provisioning_error
  from private.services s;
revoke all on private.service_rows from public, anon, authenticated, service_role;

create view public.services with (security_barrier) as
select r.id, r.user_id, r.name, r.description,
       private.decrypt_api_key(r.user_id, r.api_key_encrypted) as api_key,
       r.product_id, r.created_at, r.renews_at, r.expired, r.is_installed, r.is_deleting, r.is_deleted,
       r.state::text as state, r.provisioning_error
  from private.service_rows r
 where r.user_id = auth.uid();
revoke all on public.services from anon, authenticated, service_role;
grant select on public.services to authenticated;

create or replace function private.service_json(p_id uuid) returns jsonb
language sql stable security definer set search_path = ''
as $$
  select jsonb_build_object(
    'id', r.id, 'user_id', r.user_id, 'name', r.name, 'description', r.description,
    'api_key', extensions.pgp_sym_decrypt(r.api_key_encrypted, private.encryption_key()),
    'product_id', r.product_id, 'created_at', r.created_at, 'renews_at', r.renews_at,
    'expired', r.expired, 'is_installed', r.is_installed, 'is_deleting', r.is_deleting, 'is_deleted', r.is_deleted,
    'state', r.state, 'provisioning_error', r.provisioning_error)
  from private.service_rows r where r.id = p_id
$$;

-- ---------------------------------------------------------------- reusable: deleted, period left

create function private.is_reusable(p_state public.service_state, p_renews_at timestamptz) returns boolean
language sql stable set search_path = ''
as $$ select p_state = 'deleted' and (p_renews_at is null or p_renews_at > now()) $$;

create or replace function public.get_unused_purchased_services(p_user_id uuid)
returns table (id uuid, name text, description text, product_id uuid, product_name text, product_price numeric,
               created_at timestamptz, renews_at timestamptz)
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
     where s.user_id = p_user_id and private.is_reusable(s.state, s.renews_at)
     order by s.renews_at asc nulls last, s.created_at;
end
$$;

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
  if exists (select 1 from private.services where user_id = uid and state <> 'deleted' and lower(name) = lower(p_name)) then
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
   where s.user_id = uid and s.product_id = p_product_id and private.is_reusable(s.state, s.renews_at)
   order by s.renews_at asc nulls last, s.created_at
   limit 1;
  if reuse_id is not null then
    update private.services
       set name = p_name, description = null,
           api_key_encrypted = private.encrypt_api_key(p_api_key),
           state = 'installing'
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
  -- renews_at is moved on by the time the node takes to first run (the transition trigger).
  insert into private.services (id, user_id, name, description, api_key_encrypted, product_id, renews_at)
  values (new_id, uid, p_name, nullif(trim(p_description), ''),
          private.encrypt_api_key(p_api_key), p_product_id,
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

-- ---------------------------------------------------------------- a failed installation, retried

create function public.retry_service_installation(p_service_id uuid) returns jsonb
language plpgsql security definer set search_path = ''
as $$
declare
  uid uuid := auth.uid();
  svc private.services;
  by_admin boolean;
begin
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
revoke all on function public.retry_service_installation(uuid) from public, anon;
grant execute on function public.retry_service_installation(uuid) to authenticated;

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
  if svc.state <> 'active' or svc.renews_at is null or svc.renews_at > now() then
    return 'not_due';
  end if;
  select * into product from public.products where id = svc.product_id;
  if product.id is null or product.renew_interval is null then
    update private.services set state = 'expired' where id = svc.id;
    perform private.expire_node(svc.id, 'no renewing plan');
    return 'expired';
  end if;
  if product.price > 0 and not private.post_transaction(
      svc.user_id, -product.price, 'service_charge', format('Service renewal for %s (%s)', svc.name, product.name), svc.id,
      'service-renew:' || svc.id::text || ':' || to_char(svc.renews_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US')) then
    update private.services set state = 'expired' where id = svc.id;
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

create or replace function public.due_service_renewals(p_limit integer default 100) returns setof uuid
language plpgsql stable security definer set search_path = ''
as $$
begin
  perform private.require_service_role();
  if p_limit is null or p_limit < 1 or p_limit > 1000 then
    raise exception 'p_limit must be 1 to 1000';
  end if;
  return query
    select s.id from private.services s
     where s.state = 'active' and s.renews_at <= now()
     order by s.renews_at
     limit p_limit;
end
$$;

-- ---------------------------------------------------------------- the worker's side

create or replace function private.complete_service_installation(p_service_id uuid) returns boolean
language plpgsql security definer set search_path = ''
as $$
begin
  update private.services set state = 'active' where id = p_service_id and state = 'installing';
  if not found then
    return null;
  end if;
  perform private.record_service_event(p_service_id, 'installed');
  return true;
end
$$;

-- Installing → failed, with the engine's reason for its owner. True when this call made the change.
create function private.fail_service_installation(p_service_id uuid, p_reason text) returns boolean
language plpgsql security definer set search_path = ''
as $$
declare
  reason text := left(coalesce(nullif(trim(p_reason), ''), 'The node did not start'), 1000);
begin
  update private.services set state = 'failed', provisioning_error = reason
   where id = p_service_id and state = 'installing';
  if not found then
    return null;
  end if;
  perform private.record_service_event(p_service_id, 'install_failed', jsonb_build_object('reason', reason));
  return true;
end
$$;
revoke all on function private.fail_service_installation(uuid, text) from public, anon, authenticated, service_role;

create or replace function private.complete_service_deletion(p_service_id uuid) returns boolean
language plpgsql security definer set search_path = ''
as $$
begin
  update private.services set state = 'deleted' where id = p_service_id and state = 'deleting';
  if not found then
    return null;
  end if;
  perform private.record_service_event(p_service_id, 'deleted');
  return true;
end
$$;

-- ---------------------------------------------------------------- account deletion and the user list

create or replace function public.delete_own_account(p_email text) returns void
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
