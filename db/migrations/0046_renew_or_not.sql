-- Issue 36, item 4: each service renews, or not, as its owner says (decision 037). A switch per
-- service, on by default. Turned off, the service runs to the end of its paid period and then
-- expires there: no charge, no suspension, its node stopped and kept for Extend, as an expired
-- one's always is. The owner can turn it back on until then. Next Payment leaves such a service out.
-- The functions re-created below are their latest definitions (named at each), changed only where
-- they read or write the switch.

-- ---------------------------------------------------------------- the column

alter table private.services
  -- The owner's word: renew from the credit at the end of each paid period, or expire there.
  add column auto_renew boolean not null default true;

-- A purchased service reused (deleted → installing) is a new service to its owner: it renews, as
-- every new one does, whatever its last owner's word was.
create function private.renew_reused_service() returns trigger
language plpgsql set search_path = ''
as $$
begin
  if old.state = 'deleted' and new.state = 'installing' then
    new.auto_renew := true;
  end if;
  return new;
end
$$;
revoke all on function private.renew_reused_service() from public;
create trigger services_renew_reused before update of state on private.services
  for each row when (old.state is distinct from new.state) execute function private.renew_reused_service();

-- ---------------------------------------------------------------- what the owner reads

-- As in 0037, with auto_renew at the end.
create or replace view private.service_rows as
select s.id, s.user_id, s.name, s.description, s.api_key_encrypted, s.product_id, s.created_at, s.renews_at,
       s.state in ('expired', 'suspended') as expired,
       s.state not in ('installing', 'failed') as is_installed,
       s.state = 'deleting' as is_deleting,
       s.state = 'deleted' as is_deleted,
       s.state, s.provisioning_error, s.terminates_at, s.install_started_at, s.auto_renew
  from private.services s;

-- As in 0045, with auto_renew at the end.
create or replace view private.own_services with (security_barrier) as
select r.id, r.user_id, r.name, r.description,
       private.decrypt_api_key(r.user_id, r.api_key_encrypted) as api_key,
       r.product_id, r.created_at, r.renews_at, r.expired, r.is_installed, r.is_deleting, r.is_deleted,
       r.state::text as state, r.provisioning_error,
       private.node_state_of(r.state, (select n.state from private.node_status n where n.service_id = r.id),
                             (select m.swept_at from private.node_monitor m)) as node_state,
       (select case when n.state = 'online' then (select m.swept_at from private.node_monitor m) else n.last_seen_at end
          from private.node_status n where n.service_id = r.id) as last_seen_at,
       r.terminates_at,
       r.state = 'installing' and r.install_started_at is null as install_queued,
       (select n.online_since from private.node_status n where n.service_id = r.id) as online_since,
       (select mc.location from private.machines mc where mc.service_id = r.id) as location,
       r.auto_renew
  from private.service_rows r
 where r.user_id = auth.uid() and (select private.meets_required_aal());

-- The API's view lists the columns its select * found when it was made: the new one is added the same way.
create or replace view public.services with (security_invoker = true) as select * from private.own_services;

-- As in 0037, with auto_renew: the switch's answer (and every other) says what it is now.
create or replace function private.service_json(p_id uuid) returns jsonb
language sql stable security definer set search_path = ''
as $$
  select jsonb_build_object(
    'id', r.id, 'user_id', r.user_id, 'name', r.name, 'description', r.description,
    'api_key', private.decrypt_with_either_key(r.api_key_encrypted),
    'product_id', r.product_id, 'created_at', r.created_at, 'renews_at', r.renews_at,
    'expired', r.expired, 'is_installed', r.is_installed, 'is_deleting', r.is_deleting, 'is_deleted', r.is_deleted,
    'state', r.state, 'provisioning_error', r.provisioning_error, 'terminates_at', r.terminates_at,
    'install_queued', r.state = 'installing' and r.install_started_at is null,
    'auto_renew', r.auto_renew)
  from private.service_rows r where r.id = p_id
$$;

-- ---------------------------------------------------------------- the switch

-- The owner turns automatic renewal on or off: a function of its own rather than another key of
-- manage_service_operation's update, whose keys are the spec's (name, description, api_key) and
-- which other work changes too. Checked as every owner operation is: the second factor first,
-- then a live owner; another user's service is as absent as a missing or deleted one. Only while
-- there is a period ahead to renew or not (installing, failed, active): an expired or suspended
-- service comes back through Extend or a top-up, as before. A change is an event; the same word
-- again changes and records nothing.
create function public.set_service_auto_renew(p_service_id uuid, p_auto_renew boolean)
returns jsonb
language plpgsql security definer set search_path = ''
as $$
declare
  uid uuid := auth.uid();
  svc private.services;
  product public.products;
begin
  perform private.require_aal2_if_enrolled();
  if uid is null or not private.is_live_user(uid) then
    raise exception 'You must be logged in' using errcode = '42501';
  end if;
  if p_auto_renew is null then
    raise exception 'p_auto_renew must be true or false';
  end if;
  -- The credit row, then the service, as private.renew_service takes them: a renewal running now
  -- finishes first and this answers from what it did, or it waits and reads the owner's last word.
  perform 1 from public.user_credits where user_id = uid for update;
  select * into svc from private.services where id = p_service_id and user_id = uid and state <> 'deleted' for update;
  if svc.id is null then
    raise exception 'Service not found' using errcode = 'PT404';
  end if;
  if svc.state = 'deleting' then
    raise exception 'Service is currently being deleted...';
  end if;
  if svc.state = 'expired' then
    raise exception 'This service has expired. Extend it to start it again.';
  end if;
  if svc.state = 'suspended' then
    raise exception 'This service is suspended. Add credit to renew it, or delete it.';
  end if;
  if svc.renews_at is null then
    raise exception 'A one-time service does not renew';
  end if;
  select * into product from public.products where id = svc.product_id;
  if product.id is null or product.renew_interval is null then
    raise exception 'The plan of this service does not renew';
  end if;
  if svc.auto_renew is distinct from p_auto_renew then
    update private.services set auto_renew = p_auto_renew, updated_at = now() where id = svc.id;
    perform private.record_service_event(svc.id, case when p_auto_renew then 'auto_renew_on' else 'auto_renew_off' end);
  end if;
  return private.service_json(svc.id);
end
$$;
revoke all on function public.set_service_auto_renew(uuid, boolean) from public, anon;
grant execute on function public.set_service_auto_renew(uuid, boolean) to authenticated;

-- ---------------------------------------------------------------- renewal

-- As in 0028, with one step more: a due service whose owner turned renewal off ends there,
-- uncharged and not suspended ('ended'). Its node is stopped and kept, as an expired service's is.
create or replace function private.renew_service(p_service_id uuid, p_suspension_days integer default 14) returns text
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
  -- Its owner said no: the paid period is over and nothing more is charged.
  if not svc.auto_renew then
    update private.services set state = 'expired' where id = svc.id;
    perform private.expire_node(svc.id, 'auto_renew_off');
    return 'ended';
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

-- ---------------------------------------------------------------- Next Payment

-- As in 0032, leaving out a service that will not renew: it has no next payment.
create or replace function public.get_next_payment()
returns table (service_id uuid, service_name text, renews_at timestamptz, amount numeric, suspended boolean)
language plpgsql stable security definer set search_path = ''
as $$
#variable_conflict use_column
begin
  perform private.require_aal2_if_enrolled();
  if auth.uid() is null then
    raise exception 'You must be logged in' using errcode = '42501';
  end if;
  return query
    select s.id, s.name, s.renews_at, p.price, s.state = 'suspended'
      from private.services s join public.products p on p.id = s.product_id
     where s.user_id = auth.uid() and s.state in ('active', 'suspended') and s.renews_at is not null
       and s.auto_renew and p.renew_interval is not null and p.price > 0
     order by s.state = 'suspended' desc, s.renews_at, s.created_at
     limit 1;
end
$$;
