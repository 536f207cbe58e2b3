-- Issue 36, item 1 (docs/decisions/039): Restart, Stop and Start of a node, by its owner or an admin, as in
-- Pterodactyl. One function takes all three (public.service_power_action): the second factor, a
-- live caller, the service (another user's is as absent as a missing one, unless the caller is an
-- admin), its state, and at most POWER_ACTIONS_PER_HOUR actions per service within any hour; then an
-- event ("Stopped by you"), an audit entry when an admin acts on someone else's service, and a job
-- on the nodes lane that brings the engine to what was asked (src/server/jobs/tasks/power-node.ts).
-- The words are src/shared/power-actions.ts's, word for word.
--
-- A stop holds: the service stays active and its paid period runs on, but its node is kept stopped
-- (services.stopped_at) by the reconciler, by a resumption after a suspension or an expiry (decided:
-- the owner's stop outlives them; they start it with Start), and the node monitor records it as
-- Stopped, never Offline, so that no down alert goes out for it.
-- The functions and views re-created below are their latest definitions (named at each), changed
-- only where they read stopped_at.

-- ---------------------------------------------------------------- the column

alter table private.services
  -- When its owner (or an admin) stopped the node; null: it runs whenever the service is paid for.
  add column stopped_at timestamptz;

-- A stop holds for the node it was asked of: a service that leaves the states that have a node
-- (installing again when reused or retried, deleting) starts afresh, running.
create function private.forget_stop_without_a_node() returns trigger
language plpgsql set search_path = ''
as $$
begin
  if new.state not in ('active', 'suspended', 'expired') then
    new.stopped_at := null;
  end if;
  return new;
end
$$;
revoke all on function private.forget_stop_without_a_node() from public;
create trigger services_forget_stop before update of state on private.services
  for each row when (old.state is distinct from new.state and new.stopped_at is not null)
  execute function private.forget_stop_without_a_node();

-- The limit counts a service's power events of the last hour.
create index service_events_power_idx on public.service_events (service_id, created_at)
  where event in ('power_restart', 'power_stop', 'power_start');

-- ---------------------------------------------------------------- the action

-- PT409 for a state that does not allow the action (PostgREST answers 409), PT429 past the limit.
create function public.service_power_action(p_service_id uuid, p_action text) returns jsonb
language plpgsql security definer set search_path = ''
as $$
declare
  uid uuid := auth.uid();
  by_admin boolean;
  svc private.services;
  recent integer;
  oldest timestamptz;
  wait_minutes integer;
  before_power text;
  after_power text;
begin
  perform private.require_aal2_if_enrolled();
  if uid is null or not private.is_live_user(uid) then
    raise exception 'You must be logged in' using errcode = '42501';
  end if;
  if p_action is null or p_action not in ('restart', 'stop', 'start') then
    raise exception 'p_action must be restart, stop or start';
  end if;
  by_admin := private.is_admin(uid);
  -- A deleted service, or another user's to a non-admin, is as absent as one that never was.
  select * into svc from private.services where id = p_service_id and state <> 'deleted' and (user_id = uid or by_admin);
  if svc.id is null then
    raise exception 'Service not found' using errcode = 'PT404';
  end if;
  -- The owner's credit row first, as every writer of services does, then the service: two actions
  -- on one service take turns, so the limit below counts exactly.
  perform 1 from public.user_credits where user_id = svc.user_id for update;
  select * into svc from private.services where id = p_service_id for update;

  if svc.state in ('deleting', 'deleted') then
    raise exception 'Service is currently being deleted...' using errcode = 'PT409';
  elsif svc.state = 'installing' then
    raise exception 'The node is still being installed' using errcode = 'PT409';
  elsif svc.state = 'failed' then
    raise exception 'The installation failed: retry it first' using errcode = 'PT409';
  elsif svc.state = 'suspended' then
    raise exception 'This service is suspended: its node stays stopped until the service is renewed' using errcode = 'PT409';
  elsif svc.state = 'expired' then
    raise exception 'This service has expired: its node stays stopped until the service is extended' using errcode = 'PT409';
  elsif p_action = 'restart' and svc.stopped_at is not null then
    raise exception 'The node is stopped: start it instead' using errcode = 'PT409';
  elsif p_action = 'stop' and svc.stopped_at is not null then
    raise exception 'The node is already stopped' using errcode = 'PT409';
  elsif p_action = 'start' and svc.stopped_at is null then
    raise exception 'The node is already running' using errcode = 'PT409';
  end if;

  -- Within any hour, not a fixed window: the 11th action waits for the oldest to be an hour old.
  select count(*), min(e.created_at) into recent, oldest
    from public.service_events e
   where e.service_id = svc.id and e.event in ('power_restart', 'power_stop', 'power_start')
     and e.created_at > now() - interval '1 hour';
  if recent >= 10 then
    wait_minutes := greatest(1, ceil(extract(epoch from oldest + interval '1 hour' - now()) / 60))::integer;
    raise exception '%', format('At most 10 power actions an hour per service: try again in %s %s',
                                wait_minutes, case when wait_minutes = 1 then 'minute' else 'minutes' end)
      using errcode = 'PT429';
  end if;

  before_power := case when svc.stopped_at is null then 'running' else 'stopped' end;
  after_power := case p_action when 'stop' then 'stopped' when 'start' then 'running' else before_power end;
  if p_action <> 'restart' then
    update private.services
       set stopped_at = case when p_action = 'stop' then now() end, updated_at = now()
     where id = svc.id;
  end if;
  perform private.record_service_event(svc.id, 'power_' || p_action,
    jsonb_build_object('by', case when svc.user_id = uid then 'owner' else 'admin' end));
  if svc.user_id <> uid then
    perform private.record_admin_action('service.' || p_action, 'service', svc.id::text, svc.name,
      jsonb_build_object('node', before_power), jsonb_build_object('node', after_power));
  end if;
  perform nodeharbor.enqueue_job('power-node', jsonb_build_object('serviceId', svc.id, 'action', p_action));
  -- What the buttons need, and no key: an admin's answer must not carry a customer's (0039).
  return (select jsonb_build_object('id', s.id, 'name', s.name, 'state', s.state, 'stopped_at', s.stopped_at)
            from private.services s where s.id = svc.id);
end
$$;
revoke all on function public.service_power_action(uuid, text) from public, anon;
grant execute on function public.service_power_action(uuid, text) to authenticated;

-- ---------------------------------------------------------------- what the owner reads

-- Whether each of the caller's services is stopped on request, beside the services view rather than
-- in it: its owner reads it to offer Start or Stop and Restart. Guarded as the other owner views are
-- (0033): the caller's own rows, past the second factor; the API's view reads it as the caller.
create view private.own_service_power with (security_barrier) as
select s.id as service_id, s.stopped_at
  from private.services s
 where s.user_id = auth.uid() and s.state <> 'deleted' and (select private.meets_required_aal());
revoke all on private.own_service_power from public, anon, authenticated, service_role;
grant select on private.own_service_power to authenticated;

create view public.service_power with (security_invoker = true) as select * from private.own_service_power;
revoke all on public.service_power from public, anon, authenticated, service_role;
grant select on public.service_power to authenticated;

-- ---------------------------------------------------------------- what the admin reads

-- As in 0044, with stopped_at at the end: the fleet offers Start for a node stopped on request.
create or replace view private.fleet as
select s.id as service_id, s.name, s.user_id, u.email::text as email, p.name as product, s.created_at,
       coalesce(private.node_state_of(s.state, n.state, m.swept_at), s.state::text) as state,
       s.state::text as service_state, n.host,
       case when n.state = 'online' then m.swept_at else n.last_seen_at end as last_seen_at, n.reason, s.provisioning_error,
       coalesce(r.restarts, 0) as restarts_24h,
       case when s.state in ('installing', 'active')
              then round(coalesce(p.price / nullif(private.months_in(p.renew_interval), 0), 0) - c.monthly_cost_usd, 2)
            when s.state in ('suspended', 'expired') then -c.monthly_cost_usd
       end as monthly_margin,
       s.stopped_at
  from private.services s
  join auth.users u on u.id = s.user_id
  left join public.products p on p.id = s.product_id
  left join private.product_costs c on c.product_id = s.product_id
  left join private.node_status n on n.service_id = s.id
  left join private.node_monitor m on true
  left join (select e.service_id, count(*)::integer as restarts from public.service_events e
              where e.event = 'node_restarted' and e.created_at > now() - interval '24 hours'
              group by e.service_id) r on r.service_id = s.id
 where s.state <> 'deleted';
revoke all on private.fleet from public, anon, authenticated, service_role;

-- As in 0044, with stopped_at. Its columns change, so it is made again, with the same grants.
drop function public.admin_fleet(text, text, boolean, integer, integer);
create function public.admin_fleet(
  p_state text default null, p_sort text default 'last_seen', p_descending boolean default true,
  p_limit integer default 100, p_offset integer default 0
) returns table (
  service_id uuid, name text, user_id uuid, email text, product text, created_at timestamptz, state text, service_state text,
  host text, last_seen_at timestamptz, reason text, provisioning_error text, restarts_24h integer, monthly_margin numeric,
  stopped_at timestamptz, total_count bigint
)
language plpgsql stable security definer set search_path = ''
as $$
declare
  sort_column text;
begin
  perform private.require_aal2_if_enrolled();
  if not private.is_admin(auth.uid()) then
    raise exception 'Only admins can see the fleet' using errcode = '42501';
  end if;
  if p_limit is null or p_limit < 1 or p_limit > 500 or p_offset is null or p_offset < 0 then
    raise exception 'p_limit must be 1 to 500 and p_offset at least 0';
  end if;
  if p_state is not null and p_state not in ('online', 'offline', 'restarting', 'stopped', 'unknown', 'installing', 'failed', 'deleting') then
    raise exception 'Unknown state: %', p_state;
  end if;
  -- The sort key by name from a fixed list, never the caller's text.
  sort_column := case p_sort
    when 'last_seen' then 'f.last_seen_at' when 'restarts' then 'f.restarts_24h' when 'name' then 'f.name'
    when 'owner' then 'f.email' when 'product' then 'f.product' when 'host' then 'f.host'
    when 'state' then 'f.state' when 'created' then 'f.created_at' when 'margin' then 'f.monthly_margin' end;
  if sort_column is null then
    raise exception 'Unknown sort: %', p_sort;
  end if;
  return query execute format(
    'select f.service_id, f.name, f.user_id, f.email, f.product, f.created_at, f.state, f.service_state, f.host, f.last_seen_at,
            f.reason, f.provisioning_error, f.restarts_24h, f.monthly_margin, f.stopped_at, count(*) over ()
       from private.fleet f
      where $1 is null or f.state = $1
      order by %s %s nulls last, f.service_id
      limit $2 offset $3',
    sort_column, case when coalesce(p_descending, true) then 'desc' else 'asc' end)
    using p_state, p_limit, p_offset;
end
$$;
revoke all on function public.admin_fleet(text, text, boolean, integer, integer) from public, anon;
grant execute on function public.admin_fleet(text, text, boolean, integer, integer) to authenticated;

-- ---------------------------------------------------------------- the node monitor

-- As in 0041, with one change in `cur`: a node stopped on request is Stopped. When the engine does
-- not report it, or reports it down (a machine still powering off, a stop whose job has not run
-- yet but whose node crashed), it is stopped as asked, not offline: no incident, no down alert.
-- One stopped on request that still runs is seen online, as it is.
create or replace function private.record_node_samples(p_samples jsonb, p_max_gap_seconds integer, p_alert_after_seconds integer)
returns table (action text, incident_id bigint, service_id uuid, user_id uuid, started_at timestamptz)
-- NOTE: jit off: at 10 000 nodes the plan's cost passes jit_above_cost, and compiling it took
-- 1.3 s of a 1.5 s sweep on PostgreSQL 15 (npm run bench:monitor); the statement runs once.
language sql set search_path = '' set jit = off
as $$
  select pg_advisory_xact_lock(hashtext('nodeharbor.record_node_samples'));

  with m as (
    select (select swept_at from private.node_monitor) as swept_at
  ),
  obs as (
    select o.* from jsonb_to_recordset(p_samples) as o(service_id uuid, state text, task_id text, host text, exit_code integer, reason text)
  ),
  cur as (
    select s.id as service_id, s.user_id,
           case when s.stopped_at is not null and coalesce(o.state, 'offline') in ('offline', 'restarting') then 'stopped'
                when o.service_id is not null then o.state when s.state = 'active' then 'offline' else 'stopped' end as state,
           o.task_id, o.host, o.exit_code,
           case when s.stopped_at is not null and coalesce(o.state, 'offline') in ('offline', 'restarting') then null
                when o.service_id is null and s.state = 'active' then 'The node is missing from the engine' else o.reason end as reason,
           coalesce(pr.down_alert_minutes * 60, p_alert_after_seconds) as alert_after_seconds
      from private.services s
      left join public.products pr on pr.id = s.product_id
      left join obs o on o.service_id = s.id
     where s.state in ('active', 'expired', 'suspended')
       and (select m.swept_at is null or m.swept_at < now() from m)
  ),
  c as (
    select cur.*, p.state as p_state, p.task_id as p_task, p.last_seen_at as p_seen, p.down_since as p_down,
           p.online_since as p_online_since,
           -- A running node whose run ended: seen restarting, or seen running a new run (a new task
           -- id) when the restart fell between two samples. Counted once, when it leaves online.
           (p.state = 'online' and (cur.state = 'restarting'
              or (cur.state = 'online' and cur.task_id is not null and p.task_id is not null and cur.task_id <> p.task_id))) as restarted,
           case when cur.state in ('offline', 'restarting') then coalesce(p.down_since, now())
                when cur.state = 'unknown' then p.down_since end as down_since,
           (p.service_id is null or (p.state, p.task_id, p.host, p.exit_code, p.reason)
              is distinct from (cur.state, coalesce(cur.task_id, p.task_id), cur.host, cur.exit_code, cur.reason)) as changed
      from cur
      left join private.node_status p on p.service_id = cur.service_id
  ),
  spans as (
    -- [last sweep, now] cut at each UTC midnight, for the nodes that were sampled then.
    select c.service_id, d::date as day, c.p_state,
           extract(epoch from least(now() at time zone 'UTC', d + interval '1 day') - greatest(m.swept_at at time zone 'UTC', d)) as secs,
           -- The streak it was on, within the day: to now while the same run is online, else to
           -- the last sweep that saw it.
           case when c.p_state = 'online' and c.p_online_since is not null then
             extract(epoch from least(case when c.state = 'online' and not c.restarted then now() else m.swept_at end at time zone 'UTC',
                                      d + interval '1 day')
                                - greatest(c.p_online_since at time zone 'UTC', d))
           else 0 end as streak
      from c, m, generate_series(date_trunc('day', m.swept_at at time zone 'UTC'), now() at time zone 'UTC', interval '1 day') d
     where c.p_state is not null and now() - m.swept_at <= make_interval(secs => p_max_gap_seconds)
  ),
  uptime as (
    insert into private.node_uptime as u (service_id, day, seconds_online, seconds_observed, longest_streak_seconds)
    select sp.service_id, sp.day, sum(case when sp.p_state = 'online' then sp.secs else 0 end), sum(sp.secs),
           greatest(max(sp.streak), 0)
      from spans sp where sp.secs > 0
     group by sp.service_id, sp.day
    on conflict on constraint node_uptime_pkey do update
       set seconds_online = u.seconds_online + excluded.seconds_online,
           seconds_observed = u.seconds_observed + excluded.seconds_observed,
           longest_streak_seconds = greatest(u.longest_streak_seconds, excluded.longest_streak_seconds)
  ),
  events as (
    insert into public.service_events (service_id, user_id, event, detail)
    select c.service_id, c.user_id, e.event,
           jsonb_strip_nulls(jsonb_build_object('from', c.p_state, 'to', c.state, 'exit_code', c.exit_code, 'reason', c.reason,
                                                'host', c.host))
      from c
     cross join lateral (
       select 'node_restarted' as event where c.restarted
       union all
       -- A restart says what a move to restarting would; unknown is no news.
       select 'node_' || c.state where c.p_state is distinct from c.state and c.state <> 'unknown'
                                     and not (c.restarted and c.state = 'restarting')
     ) e
  ),
  status as (
    insert into private.node_status as n (service_id, state, task_id, host, exit_code, reason, changed_at, last_seen_at, down_since,
                                          online_since)
    select c.service_id, c.state, coalesce(c.task_id, c.p_task), c.host, c.exit_code, c.reason, now(),
           -- Leaving online: it was last seen by the last sweep.
           case when c.p_state = 'online' and c.state <> 'online' then m.swept_at else c.p_seen end,
           c.down_since,
           -- A streak goes on while the same run stays online; a new run or a return starts one now.
           case when c.state <> 'online' then null
                when c.p_state = 'online' and not c.restarted then coalesce(c.p_online_since, now())
                else now() end
      from c, m
     where c.changed
    on conflict on constraint node_status_pkey do update
       set state = excluded.state, task_id = excluded.task_id, host = excluded.host, exit_code = excluded.exit_code,
           reason = excluded.reason, changed_at = excluded.changed_at, last_seen_at = excluded.last_seen_at,
           down_since = excluded.down_since, online_since = excluded.online_since
  ),
  -- A service that is no longer live forgets its node: if it lives again, its node starts afresh.
  forgotten as (
    delete from private.node_status n
     where (select m.swept_at is null or m.swept_at < now() from m)
       and not exists (select 1 from cur where cur.service_id = n.service_id)
  ),
  swept as (
    insert into private.node_monitor (id, swept_at) select true, now() from m where m.swept_at is null or m.swept_at < now()
    on conflict (id) do update set swept_at = excluded.swept_at
  ),
  opened as (
    insert into private.node_incidents (service_id, user_id, started_at)
    select c.service_id, c.user_id, c.down_since
      from c
     where c.state in ('offline', 'restarting') and c.down_since <= now() - make_interval(secs => c.alert_after_seconds)
       and not exists (select 1 from private.node_incidents i where i.service_id = c.service_id and i.resolved_at is null)
    returning id, service_id, user_id, started_at
  ),
  resolved as (
    update private.node_incidents i
       set resolved_at = now(), resolution = x.state
      from (select c.service_id, c.state from c where c.state in ('online', 'stopped')
            union all
            -- Services no longer live (deleted, failed): their incidents close without a mail.
            select i2.service_id, 'gone' from private.node_incidents i2
             where i2.resolved_at is null and (select m.swept_at is null or m.swept_at < now() from m)
               and not exists (select 1 from cur where cur.service_id = i2.service_id)) x
     where i.service_id = x.service_id and i.resolved_at is null
    returning i.id, i.service_id, i.user_id, i.started_at, i.resolution, i.mailed
  )
  select 'down', o.id, o.service_id, o.user_id, o.started_at from opened o
  union all
  select 'up', r.id, r.service_id, r.user_id, r.started_at from resolved r where r.resolution = 'online' and r.mailed
$$;
revoke all on function private.record_node_samples(jsonb, integer, integer) from public;
