-- Issue 20: suspension, then termination (decision 020). A renewal the balance cannot cover no
-- longer expires the service: it is suspended, its node stopped and kept, until terminates_at
-- (SUSPENSION_DAYS later, passed in by the worker). A credit to the owner's balance queues a
-- resume-services job, which renews it through the same ledger key as the failed renewal and starts
-- the same node; extending works too. A suspension nobody paid for ends through the deletion path:
-- the node is removed and the service leaves the list. Expired keeps its meaning (a plan that no
-- longer renews; the node stopped, kept for an extension).

-- ---------------------------------------------------------------- the column and the paths

alter table private.services
  -- When a suspension ends unpaid; set only while suspended (cleared by the trigger below).
  add column terminates_at timestamptz,
  add constraint services_terminates_only_while_suspended check ((state = 'suspended') = (terminates_at is not null));
create index services_terminates_at_idx on private.services (terminates_at) where state = 'suspended';

insert into private.service_transitions (from_state, to_state) values
  ('active', 'suspended'),    -- not renewed: the node is stopped, kept until terminates_at
  ('suspended', 'active'),    -- paid (a top-up or an extension): the same node runs again
  ('suspended', 'deleting'),  -- terminated unpaid, or deleted by its owner
  ('suspended', 'expired');   -- its plan no longer renews: kept, as an expired service is

-- Leaving suspension forgets its end, whichever function moves the state.
create function private.clear_termination() returns trigger
language plpgsql set search_path = ''
as $$
begin
  if new.state <> 'suspended' then
    new.terminates_at := null;
  end if;
  return new;
end
$$;
revoke all on function private.clear_termination() from public;
create trigger services_clear_termination before update of state on private.services
  for each row when (old.state is distinct from new.state) execute function private.clear_termination();

-- ---------------------------------------------------------------- what the owner reads

create or replace view private.service_rows as
select s.id, s.user_id, s.name, s.description, s.api_key_encrypted, s.product_id, s.created_at, s.renews_at,
       s.state in ('expired', 'suspended') as expired,
       s.state not in ('installing', 'failed') as is_installed,
       s.state = 'deleting' as is_deleting,
       s.state = 'deleted' as is_deleted,
       s.state, s.provisioning_error, s.terminates_at
  from private.services s;

-- As in 0019, with terminates_at at the end.
create or replace view public.services with (security_barrier) as
select r.id, r.user_id, r.name, r.description,
       private.decrypt_api_key(r.user_id, r.api_key_encrypted) as api_key,
       r.product_id, r.created_at, r.renews_at, r.expired, r.is_installed, r.is_deleting, r.is_deleted,
       r.state::text as state, r.provisioning_error,
       private.node_state_of(r.state, (select n.state from private.node_status n where n.service_id = r.id),
                             (select m.swept_at from private.node_monitor m)) as node_state,
       (select case when n.state = 'online' then (select m.swept_at from private.node_monitor m) else n.last_seen_at end
          from private.node_status n where n.service_id = r.id) as last_seen_at,
       r.terminates_at
  from private.service_rows r
 where r.user_id = auth.uid() and (select private.meets_required_aal());

-- As in 0017, with terminates_at.
create or replace function private.service_json(p_id uuid) returns jsonb
language sql stable security definer set search_path = ''
as $$
  select jsonb_build_object(
    'id', r.id, 'user_id', r.user_id, 'name', r.name, 'description', r.description,
    'api_key', private.decrypt_with_either_key(r.api_key_encrypted),
    'product_id', r.product_id, 'created_at', r.created_at, 'renews_at', r.renews_at,
    'expired', r.expired, 'is_installed', r.is_installed, 'is_deleting', r.is_deleting, 'is_deleted', r.is_deleted,
    'state', r.state, 'provisioning_error', r.provisioning_error, 'terminates_at', r.terminates_at)
  from private.service_rows r where r.id = p_id
$$;

-- ---------------------------------------------------------------- renewal, suspension, termination

-- One step of a service's renewal, for the worker (renew-service, resume-services) and
-- public.renew_service. Answers what it did:
--   renewed     an active service was due and paid for
--   suspended   it was due and the balance was short: node stopped, terminates_at set
--   resumed     a suspended service is paid for now: a new period from now, the same node started
--   terminated  a suspension ended unpaid: the node is removed through the deletion path
--   expired     its plan no longer renews (as before)
--   not_due     nothing to do (a repeated job lands here)
-- The charge's key is the period's, as before: a suspended service's one charge is the renewal it
-- missed, so a retried or repeated resumption charges once. p_suspension_days: SUSPENSION_DAYS.
drop function private.renew_service(uuid);
create function private.renew_service(p_service_id uuid, p_suspension_days integer default 14) returns text
language plpgsql security definer set search_path = ''
as $$
declare
  owner_id uuid;
  svc private.services;
  product public.products;
  renewing boolean;
  next_at timestamptz;
begin
  if p_suspension_days is null or p_suspension_days < 1 or p_suspension_days > 365 then
    raise exception 'p_suspension_days must be 1 to 365';
  end if;
  select user_id into owner_id from private.services where id = p_service_id;
  if owner_id is null then
    return 'not_due';
  end if;
  -- The credit row first, as every other writer does, then the service: no deadlock.
  perform 1 from public.user_credits where user_id = owner_id for update;
  select * into svc from private.services where id = p_service_id for update;
  if svc.renews_at is null or not (svc.state = 'suspended' or (svc.state = 'active' and svc.renews_at <= now())) then
    return 'not_due';
  end if;
  select * into product from public.products where id = svc.product_id;
  renewing := product.id is not null and product.renew_interval is not null;
  if renewing and (product.price = 0 or private.post_transaction(
      svc.user_id, -product.price, 'service_charge', format('Service renewal for %s (%s)', svc.name, product.name), svc.id,
      'service-renew:' || svc.id::text || ':' || to_char(svc.renews_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US'))) then
    -- The next period follows the last one; after a long outage or a suspension it starts now, so
    -- no time without a running node is sold.
    next_at := svc.renews_at + product.renew_interval::interval;
    if next_at <= now() or svc.state = 'suspended' then
      next_at := now() + product.renew_interval::interval;
    end if;
    update private.services set state = 'active', renews_at = next_at, updated_at = now() where id = svc.id;
    perform private.record_service_event(svc.id, 'renewed',
      jsonb_strip_nulls(jsonb_build_object('charged', product.price, 'renews_at', next_at,
                                           'months', private.interval_months(product.renew_interval))));
    if svc.state = 'suspended' then
      perform private.record_service_event(svc.id, 'start_requested');
      perform nodeharbor.enqueue_job('start-service', jsonb_build_object('serviceId', svc.id));
      return 'resumed';
    end if;
    return 'renewed';
  end if;
  -- A plan that no longer renews (or is gone): no credit could renew the service, suspended or
  -- not, so it expires with its node kept, as one always has; only Extend brings it back.
  if not renewing then
    update private.services set state = 'expired' where id = svc.id;
    perform private.expire_node(svc.id, 'no renewing plan');
    return 'expired';
  end if;
  if svc.state = 'suspended' then
    if svc.terminates_at > now() then
      return 'not_due';
    end if;
    update private.services set state = 'deleting' where id = svc.id;
    perform private.record_service_event(svc.id, 'delete_requested', jsonb_build_object('reason', 'suspension_ended'));
    perform nodeharbor.enqueue_job('uninstall-service', jsonb_build_object('serviceId', svc.id));
    return 'terminated';
  end if;
  update private.services
     set state = 'suspended', terminates_at = now() + make_interval(days => p_suspension_days)
   where id = svc.id;
  perform private.record_service_event(svc.id, 'suspended',
    jsonb_build_object('reason', 'balance too low', 'terminates_at', now() + make_interval(days => p_suspension_days)));
  perform nodeharbor.enqueue_job('stop-service', jsonb_build_object('serviceId', svc.id));
  return 'suspended';
end
$$;
revoke all on function private.renew_service(uuid, integer) from public, anon, authenticated, service_role;

-- The service role's RPC of 0004 calls private.renew_service by name: it now takes the default
-- suspension. Nothing else changes.

-- ---------------------------------------------------------------- a credit resumes

-- Any credit to a balance (a completed purchase, an admin's credit, a refund) queues one
-- resume-services job for its owner when they have a suspended service: the worker renews what
-- the balance now covers and mails, as for every renewal. Keyed by the transaction: once each.
create function private.queue_resumption() returns trigger
language plpgsql set search_path = ''
as $$
begin
  if exists (select 1 from private.services where user_id = new.user_id and state = 'suspended') then
    perform nodeharbor.enqueue_job('resume-services', jsonb_build_object('userId', new.user_id),
                                   'resume-services:' || new.id::text);
  end if;
  return null;
end
$$;
revoke all on function private.queue_resumption() from public;
create trigger credit_transactions_queue_resumption after insert on public.credit_transactions
  for each row when (new.amount > 0) execute function private.queue_resumption();

-- ---------------------------------------------------------------- extending a suspended service

-- As in 0016, with suspended extended as expired is: active again, its node started.
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
         state = case when state in ('expired', 'suspended') then 'active' else state end, updated_at = now()
   where id = svc.id;
  perform private.record_service_event(svc.id, 'extended', jsonb_build_object('months', p_months, 'renews_at', new_renews_at));
  if svc.state in ('expired', 'suspended') then
    perform private.record_service_event(svc.id, 'start_requested');
    perform nodeharbor.enqueue_job('start-service', jsonb_build_object('serviceId', svc.id));
  end if;
  return private.service_json(svc.id) || jsonb_build_object('charged', total, 'months', p_months);
end
$$;

-- ---------------------------------------------------------------- closing an account

-- As in 0024, with a suspended service deleted as an active one is: its stopped node holds the
-- person's key, and nothing of a closed account is renewed.
create or replace function private.close_account(p_user_id uuid) returns void
language plpgsql security definer set search_path = ''
as $$
declare
  account_email text;
  svc_id uuid;
begin
  select email into account_email from auth.users where id = p_user_id;
  for svc_id in
    select id from private.services where user_id = p_user_id and state in ('active', 'suspended', 'expired', 'failed')
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
