-- Issue 36, item 7: customers read their own words (docs/decisions/042-customers-read-their-own-words.md).
-- - An installation that failed tells its owner why in words of ours, by cause: services.failure_cause
--   ('not_started': we could not start the node and are looking into it; 'key_refused': the node's
--   network refused the key, which its owner can change). The engine's reason stays in
--   services.provisioning_error, which only the admins' functions (the fleet, a user's page) read.
-- - What an operator reads of an event (an engine's reason, an error, a host) is kept apart from
--   what its owner reads: private.service_event_notes, which admin_user_events puts back. A trigger
--   does it, whoever writes the event (the SQL functions, the worker, the node monitor).
-- - Saving a service's own key again, and nothing else, is refused in words ("That is already this
--   service's key"): no event, no job, no write.
-- The words live in src/shared/install-failure.ts and src/shared/validation.ts; the codes here.
-- The functions and views re-created below are their latest definitions (named at each), changed
-- only where they read or write the cause, the operator's words or the same key.

-- ---------------------------------------------------------------- the cause of a failure

alter table private.services
  -- Why the installation failed, as its owner is told; read only while the service is failed.
  add column failure_cause text not null default 'not_started'
    constraint services_failure_cause_check check (failure_cause in ('not_started', 'key_refused'));

-- Services that failed already: a machine's agent said so in these words when Gala refused the key
-- (provisioning/drivers/machine.ts).
update private.services set failure_cause = 'key_refused'
 where state = 'failed' and provisioning_error like 'Gala refused this API key:%';

-- As in 0050, with the cause: the owner's words are chosen by it, the reason is the operator's.
drop function private.fail_service_installation(uuid, text);
create function private.fail_service_installation(p_service_id uuid, p_reason text, p_cause text default 'not_started') returns boolean
language plpgsql security definer set search_path = ''
as $$
declare
  reason text := left(coalesce(nullif(trim(p_reason), ''), 'The node did not start'), 1000);
  owner_id uuid;
  refunded numeric;
begin
  if p_cause is null or p_cause not in ('not_started', 'key_refused') then
    raise exception 'p_cause must be not_started or key_refused';
  end if;
  select user_id into owner_id from private.services where id = p_service_id;
  if owner_id is null then
    return null;
  end if;
  perform 1 from public.user_credits where user_id = owner_id for update;
  update private.services set state = 'failed', provisioning_error = reason, failure_cause = p_cause
   where id = p_service_id and state = 'installing';
  if not found then
    return null;
  end if;
  refunded := private.refund_install_charge(p_service_id);
  -- The reason goes to the event's operator notes (the trigger below); the cause stays with its owner.
  perform private.record_service_event(p_service_id, 'install_failed',
    jsonb_strip_nulls(jsonb_build_object('reason', reason, 'cause', p_cause, 'refunded', refunded)));
  return true;
end
$$;
-- The worker's alone, as before.
revoke all on function private.fail_service_installation(uuid, text, text) from public, anon, authenticated, service_role;

-- ---------------------------------------------------------------- an event's operator notes

-- What of an event's detail is an operator's: an engine's or a job's error, the host a node ran on,
-- and the reason of a failed installation or of a node's state (the engine's words). Other
-- reasons (an expiry's, a suspension's) are codes the owner's page puts in words, and stay.
create function private.operator_detail_keys(p_event text) returns text[]
language sql immutable set search_path = ''
as $$
  select case when p_event = 'install_failed' or p_event like 'node\_%' then array['error', 'host', 'reason']
              else array['error', 'host'] end
$$;
revoke all on function private.operator_detail_keys(text) from public, anon, authenticated, service_role;

create table private.service_event_notes (
  -- Deferred: the trigger writes the note before its event's row exists.
  event_id bigint primary key references public.service_events (id) on delete cascade deferrable initially deferred,
  detail jsonb not null
);
alter table private.service_event_notes enable row level security;
revoke all on private.service_event_notes from public, anon, authenticated, service_role;

-- Every event, whoever writes it: its operator's part is kept here, the rest is its owner's.
create function private.keep_operator_notes() returns trigger
language plpgsql set search_path = ''
as $$
declare
  keys text[] := private.operator_detail_keys(new.event);
begin
  if jsonb_typeof(new.detail) is distinct from 'object' or not new.detail ?| keys then
    return new;
  end if;
  insert into private.service_event_notes (event_id, detail)
  select new.id, jsonb_object_agg(d.key, d.value) from jsonb_each(new.detail) d where d.key = any(keys);
  new.detail := nullif(new.detail - keys, '{}'::jsonb);
  return new;
end
$$;
revoke all on function private.keep_operator_notes() from public;
create trigger service_events_keep_operator_notes before insert on public.service_events
  for each row execute function private.keep_operator_notes();

-- The events written until now: a failed installation's says its cause, as from now on, and the
-- operator's words move out of what owners read.
update public.service_events e
   set detail = coalesce(e.detail, '{}'::jsonb)
                || jsonb_build_object('cause', case when e.detail ->> 'reason' like 'Gala refused this API key:%' then 'key_refused'
                                                   else 'not_started' end)
 where e.event = 'install_failed';
insert into private.service_event_notes (event_id, detail)
select e.id, (select jsonb_object_agg(d.key, d.value) from jsonb_each(e.detail) d where d.key = any(private.operator_detail_keys(e.event)))
  from public.service_events e
 where jsonb_typeof(e.detail) = 'object' and e.detail ?| private.operator_detail_keys(e.event);
update public.service_events e
   set detail = nullif(e.detail - private.operator_detail_keys(e.event), '{}'::jsonb)
 where jsonb_typeof(e.detail) = 'object' and e.detail ?| private.operator_detail_keys(e.event);

-- As in 0024, with each event's operator notes put back: an admin reads the whole of it.
create or replace function public.admin_user_events(p_user_id uuid, p_limit integer default 50, p_offset integer default 0)
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
    select e.id, e.service_id, s.name, e.event,
           case when n.detail is null then e.detail else coalesce(e.detail, '{}'::jsonb) || n.detail end,
           e.created_at, count(*) over ()
      from public.service_events e
      join private.services s on s.id = e.service_id
      left join private.service_event_notes n on n.event_id = e.id
     where e.user_id = p_user_id
     order by e.id desc
     limit p_limit offset p_offset;
end
$$;

-- ---------------------------------------------------------------- what the owner reads

-- As in 0050, with failure_cause at the end.
create or replace view private.service_rows as
select s.id, s.user_id, s.name, s.description, s.api_key_encrypted, s.product_id, s.created_at, s.renews_at,
       s.state in ('expired', 'suspended') as expired,
       s.state not in ('installing', 'failed') as is_installed,
       s.state = 'deleting' as is_deleting,
       s.state = 'deleted' as is_deleted,
       s.state, s.provisioning_error, s.terminates_at, s.install_started_at, s.auto_renew, s.install_refund_id,
       s.failure_cause
  from private.services s;

-- As in 0050, with failure_cause in place of provisioning_error: the owner reads the cause of a
-- failed installation, never the engine's reason. A column goes, so the views are made again, with
-- the grants of 0033.
drop view public.services;
drop view private.own_services;
create view private.own_services with (security_barrier) as
select r.id, r.user_id, r.name, r.description,
       private.decrypt_api_key(r.user_id, r.api_key_encrypted) as api_key,
       r.product_id, r.created_at, r.renews_at, r.expired, r.is_installed, r.is_deleting, r.is_deleted,
       r.state::text as state,
       case when r.state = 'failed' then r.failure_cause end as failure_cause,
       private.node_state_of(r.state, (select n.state from private.node_status n where n.service_id = r.id),
                             (select m.swept_at from private.node_monitor m)) as node_state,
       (select case when n.state = 'online' then (select m.swept_at from private.node_monitor m) else n.last_seen_at end
          from private.node_status n where n.service_id = r.id) as last_seen_at,
       r.terminates_at,
       r.state = 'installing' and r.install_started_at is null as install_queued,
       (select n.online_since from private.node_status n where n.service_id = r.id) as online_since,
       (select mc.location from private.machines mc where mc.service_id = r.id) as location,
       r.auto_renew,
       (select t.amount from public.credit_transactions t where t.id = r.install_refund_id) as install_refund
  from private.service_rows r
 where r.user_id = auth.uid() and (select private.meets_required_aal());
revoke all on private.own_services from anon, authenticated, service_role;
grant select on private.own_services to authenticated;

create view public.services with (security_invoker = true) as select * from private.own_services;
revoke all on public.services from anon, authenticated, service_role;
grant select on public.services to authenticated;

-- As in 0050, with failure_cause in place of provisioning_error: every answer about a service goes
-- to its owner (an admin's retry leaves out the key, 0048), so none carries the engine's reason.
create or replace function private.service_json(p_id uuid) returns jsonb
language sql stable security definer set search_path = ''
as $$
  select jsonb_build_object(
    'id', r.id, 'user_id', r.user_id, 'name', r.name, 'description', r.description,
    'api_key', private.decrypt_with_either_key(r.api_key_encrypted),
    'product_id', r.product_id, 'created_at', r.created_at, 'renews_at', r.renews_at,
    'expired', r.expired, 'is_installed', r.is_installed, 'is_deleting', r.is_deleting, 'is_deleted', r.is_deleted,
    'state', r.state, 'failure_cause', case when r.state = 'failed' then r.failure_cause end, 'terminates_at', r.terminates_at,
    'install_queued', r.state = 'installing' and r.install_started_at is null,
    'auto_renew', r.auto_renew,
    'install_refund', (select t.amount from public.credit_transactions t where t.id = r.install_refund_id))
  from private.service_rows r where r.id = p_id
$$;

-- ---------------------------------------------------------------- the same key again

-- As in 0021, and an update that names the service's own key and changes nothing else is refused:
-- its owner thought the key new, and a silent success would hand the node nothing.
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
  key_changed boolean;
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
    select properties into props from public.products where id = svc.product_id;
    if coalesce(new_key, '') = '' and (p_operation = 'reactivate' or p_updates ? 'api_key') then
      raise exception '% is required', private.key_noun(props);
    end if;
    if new_key is not null then
      perform private.check_api_key(new_key, props);
    end if;
    if char_length(p_updates ->> 'description') > 500 then
      raise exception 'The description must be at most 500 characters';
    end if;
    key_changed := new_key is not null and new_key is distinct from private.decrypt_with_either_key(svc.api_key_encrypted);
    -- Its own key again, and nothing else: said in messages.sameKey's words (src/shared/validation.ts).
    if p_operation = 'update' and new_key is not null and not key_changed and new_name = svc.name
       and (not p_updates ? 'description' or nullif(trim(p_updates ->> 'description'), '') is not distinct from svc.description) then
      raise exception 'That is already this service''s key';
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
    else
      if new_name <> svc.name then
        perform private.record_service_event(svc.id, 'renamed', jsonb_build_object('from', svc.name, 'to', new_name));
      end if;
      if key_changed then
        perform private.record_service_event(svc.id, 'key_changed');
        if svc.state in ('active', 'expired', 'suspended') then
          perform nodeharbor.enqueue_job('update-node-key', jsonb_build_object('serviceId', svc.id));
        end if;
      end if;
    end if;
  else
    raise exception 'Unknown operation: %', p_operation;
  end if;
  return private.service_json(svc.id);
end
$$;
