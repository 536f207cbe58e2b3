-- Watching the nodes (issue 16). The node monitor samples every live node (active, expired or
-- suspended service) from the engine every NODE_MONITOR_INTERVAL_SECONDS and hands the samples to
-- private.record_node_samples in one statement, however many nodes there are. Only what changes is
-- written, and the time online: a node's state in private.node_status and each transition and
-- restart as a service event, when they change; the time of the sweep; the time online per UTC day
-- in private.node_uptime (kept 90 days); an incident when a node has been down longer than
-- NODE_DOWN_ALERT_MINUTES. Owners read their own nodes through the
-- services view and public.service_uptime; admins read the whole fleet through public.admin_fleet.

-- ---------------------------------------------------------------- products: the reward threshold

-- Seconds online per UTC day that the network rewards; null: none is known for this product.
alter table public.products
  add column uptime_threshold_seconds integer check (uptime_threshold_seconds between 1 and 86400);
-- Playa3ull counts a Master Node's uptime per UTC day, with 8 hours as the reward threshold.
update public.products set uptime_threshold_seconds = 8 * 3600
 where base_product_code = 'MASTERNODE' and uptime_threshold_seconds is null;

-- ---------------------------------------------------------------- the simulated engine's health

-- The simulated driver's nodes can fail as real ones do (README, Simulated nodes): a run that ends
-- (a crash, exit code 137 like kill -9) is started again after a restart delay; an outage keeps the
-- node offline until it ends. `task` numbers the node's runs, as Swarm's task ids do.
alter table nodeharbor.simulated_nodes
  add column task integer not null default 1,
  add column started_at timestamptz not null default now(),
  add column exit_code integer,
  add column restarting_until timestamptz,
  add column offline_until timestamptz;

-- ---------------------------------------------------------------- what the monitor keeps

-- When the last sweep ran: every live node was sampled then. One row.
create table private.node_monitor (
  id boolean primary key default true check (id),
  swept_at timestamptz not null
);
alter table private.node_monitor enable row level security;
revoke all on private.node_monitor from public, anon, authenticated, service_role;

-- One row per live service whose node has been sampled: its state since its last change. Written
-- only when something changes; while it is online, it was last seen at the last sweep.
create table private.node_status (
  service_id uuid primary key references private.services (id) on delete cascade,
  state text not null check (state in ('online', 'offline', 'restarting', 'stopped', 'unknown')),
  -- The engine's current run of the node: a new one means the node was started again.
  task_id text,
  host text,
  exit_code integer,
  reason text,
  changed_at timestamptz not null,
  -- The last sweep that found it online, once it is not.
  last_seen_at timestamptz,
  -- Since when it has been offline or restarting without a break: the alert's clock.
  down_since timestamptz
);
alter table private.node_status enable row level security;
revoke all on private.node_status from public, anon, authenticated, service_role;

-- Seconds per UTC day: observed (sampled without a gap) and online within them.
create table private.node_uptime (
  service_id uuid not null references private.services (id) on delete cascade,
  day date not null,
  seconds_online double precision not null default 0,
  seconds_observed double precision not null default 0,
  primary key (service_id, day),
  check (seconds_online >= 0 and seconds_online <= seconds_observed)
);
create index node_uptime_day_idx on private.node_uptime (day);
alter table private.node_uptime enable row level security;
revoke all on private.node_uptime from public, anon, authenticated, service_role;

-- A node down longer than the alert delay: one incident, one e-mail when it opens and one when the
-- node is back (mailed: the first was sent, within the owner's hourly cap).
create table private.node_incidents (
  id bigserial primary key,
  service_id uuid not null references private.services (id) on delete cascade,
  user_id uuid not null references auth.users (id) on delete cascade,
  started_at timestamptz not null,
  opened_at timestamptz not null default now(),
  resolved_at timestamptz,
  -- online: the node came back; stopped, gone: its service stopped or left (no mail).
  resolution text check (resolution in ('online', 'stopped', 'gone')),
  mailed boolean not null default false
);
create unique index node_incidents_open_key on private.node_incidents (service_id) where resolved_at is null;
create index node_incidents_service_idx on private.node_incidents (service_id, id desc);
alter table private.node_incidents enable row level security;
revoke all on private.node_incidents from public, anon, authenticated, service_role;

-- Restarts in the last 24 hours, for the service page and the fleet view.
create index service_events_restarts_idx on public.service_events (created_at, service_id) where event = 'node_restarted';

-- ---------------------------------------------------------------- a node's state as shown

-- A live service's node state, or null for a service with no node to watch (installing, failed,
-- deleting, deleted). Unknown before its first sample, and when the last sweep is older than five
-- minutes (NODE_MONITOR_INTERVAL_SECONDS is at most 120): an old sample says nothing of now.
-- NOTE: no search_path of its own, so that PostgreSQL inlines it (a function with SET never is) into
-- the fleet's counts over every service; it names nothing but built-ins and its arguments.
create function private.node_state_of(p_service_state public.service_state, p_node_state text, p_swept_at timestamptz)
returns text
language sql stable
as $$
  select case
           when p_service_state not in ('active', 'expired', 'suspended') then null
           when p_node_state is null or p_swept_at is null or p_swept_at < now() - interval '5 minutes' then 'unknown'
           else p_node_state
         end
$$;
revoke all on function private.node_state_of(public.service_state, text, timestamptz) from public;
-- A view's functions run as its reader: the services view's readers need this one.
grant execute on function private.node_state_of(public.service_state, text, timestamptz) to authenticated;

-- Subqueries, not a join: a view over one relation stays one that PostgreSQL refuses writes to
-- for want of a grant (42501), not for want of a rule (a 500).
create or replace view public.services with (security_barrier) as
select r.id, r.user_id, r.name, r.description,
       private.decrypt_api_key(r.user_id, r.api_key_encrypted) as api_key,
       r.product_id, r.created_at, r.renews_at, r.expired, r.is_installed, r.is_deleting, r.is_deleted,
       r.state::text as state, r.provisioning_error,
       private.node_state_of(r.state, (select n.state from private.node_status n where n.service_id = r.id),
                             (select m.swept_at from private.node_monitor m)) as node_state,
       (select case when n.state = 'online' then (select m.swept_at from private.node_monitor m) else n.last_seen_at end
          from private.node_status n where n.service_id = r.id) as last_seen_at
  from private.service_rows r
 where r.user_id = auth.uid() and (select private.meets_required_aal());

-- One row per service per UTC day, the owner's only; meets_threshold is null for a product without
-- one. Over one relation, as the services view is (above); its subqueries read as the view's owner.
create view public.service_uptime with (security_barrier) as
select u.service_id, u.day, round(u.seconds_online)::integer as seconds_online, round(u.seconds_observed)::integer as seconds_observed,
       (select p.uptime_threshold_seconds from private.services s join public.products p on p.id = s.product_id
         where s.id = u.service_id) as threshold_seconds,
       u.seconds_online >= (select p.uptime_threshold_seconds from private.services s join public.products p on p.id = s.product_id
                             where s.id = u.service_id) as meets_threshold
  from private.node_uptime u
 where u.service_id in (select s.id from private.services s where s.user_id = auth.uid())
   and (select private.meets_required_aal());
revoke all on public.service_uptime from anon, authenticated, service_role;
grant select on public.service_uptime to authenticated;

-- ---------------------------------------------------------------- the sweep

-- p_samples: the engine's nodes, [{service_id, state, task_id, host, exit_code, reason}]. A live
-- service the engine did not report is offline when it should run (the reconciler recreates it)
-- and stopped otherwise. In one statement, for every live service: the time since the last sweep
-- is added to its uptime as the state it had then (a gap longer than p_max_gap_seconds, when no
-- sweep ran, is not observed); a transition or a new run is a service event and changes its
-- status row (nothing else does); an incident opens once it has been down longer than
-- p_alert_after_seconds, and closes when it is back. Returns the incidents to mail: 'down' for one
-- opened, 'up' for one whose node is back and whose first mail went out. Sweeps take turns (the
-- advisory lock); one that began before the last recorded sweep records nothing.
create function private.record_node_samples(p_samples jsonb, p_max_gap_seconds integer, p_alert_after_seconds integer)
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
           case when o.service_id is not null then o.state when s.state = 'active' then 'offline' else 'stopped' end as state,
           o.task_id, o.host, o.exit_code,
           case when o.service_id is null and s.state = 'active' then 'The node is missing from the engine' else o.reason end as reason
      from private.services s
      left join obs o on o.service_id = s.id
     where s.state in ('active', 'expired', 'suspended')
       and (select m.swept_at is null or m.swept_at < now() from m)
  ),
  c as (
    select cur.*, p.state as p_state, p.task_id as p_task, p.last_seen_at as p_seen, p.down_since as p_down,
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
           extract(epoch from least(now() at time zone 'UTC', d + interval '1 day') - greatest(m.swept_at at time zone 'UTC', d)) as secs
      from c, m, generate_series(date_trunc('day', m.swept_at at time zone 'UTC'), now() at time zone 'UTC', interval '1 day') d
     where c.p_state is not null and now() - m.swept_at <= make_interval(secs => p_max_gap_seconds)
  ),
  uptime as (
    insert into private.node_uptime as u (service_id, day, seconds_online, seconds_observed)
    select sp.service_id, sp.day, sum(case when sp.p_state = 'online' then sp.secs else 0 end), sum(sp.secs)
      from spans sp where sp.secs > 0
     group by sp.service_id, sp.day
    on conflict on constraint node_uptime_pkey do update
       set seconds_online = u.seconds_online + excluded.seconds_online,
           seconds_observed = u.seconds_observed + excluded.seconds_observed
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
    insert into private.node_status as n (service_id, state, task_id, host, exit_code, reason, changed_at, last_seen_at, down_since)
    select c.service_id, c.state, coalesce(c.task_id, c.p_task), c.host, c.exit_code, c.reason, now(),
           -- Leaving online: it was last seen by the last sweep.
           case when c.p_state = 'online' and c.state <> 'online' then m.swept_at else c.p_seen end,
           c.down_since
      from c, m
     where c.changed
    on conflict on constraint node_status_pkey do update
       set state = excluded.state, task_id = excluded.task_id, host = excluded.host, exit_code = excluded.exit_code,
           reason = excluded.reason, changed_at = excluded.changed_at, last_seen_at = excluded.last_seen_at,
           down_since = excluded.down_since
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
     where c.state in ('offline', 'restarting') and c.down_since <= now() - make_interval(secs => p_alert_after_seconds)
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

-- Uptime and incidents older than UPTIME_KEPT_DAYS (src/shared/node-health.ts) go.
create function private.prune_node_history(p_keep_days integer) returns void
language sql set search_path = ''
as $$
  delete from private.node_uptime where day < (now() at time zone 'UTC')::date - p_keep_days;
  delete from private.node_incidents where resolved_at < now() - make_interval(days => p_keep_days);
$$;
revoke all on function private.prune_node_history(integer) from public;

-- ---------------------------------------------------------------- the admin's fleet view

-- A service as the fleet shows it: a live one by its node's state, the others by their own.
create view private.fleet as
select s.id as service_id, s.name, s.user_id, u.email::text as email, p.name as product, s.created_at,
       coalesce(private.node_state_of(s.state, n.state, m.swept_at), s.state::text) as state,
       s.state::text as service_state, n.host,
       case when n.state = 'online' then m.swept_at else n.last_seen_at end as last_seen_at, n.reason, s.provisioning_error,
       coalesce(r.restarts, 0) as restarts_24h
  from private.services s
  join auth.users u on u.id = s.user_id
  left join public.products p on p.id = s.product_id
  left join private.node_status n on n.service_id = s.id
  left join private.node_monitor m on true
  left join (select e.service_id, count(*)::integer as restarts from public.service_events e
              where e.event = 'node_restarted' and e.created_at > now() - interval '24 hours'
              group by e.service_id) r on r.service_id = s.id
 where s.state <> 'deleted';
revoke all on private.fleet from public, anon, authenticated, service_role;

create function public.admin_fleet(
  p_state text default null, p_sort text default 'last_seen', p_descending boolean default true,
  p_limit integer default 100, p_offset integer default 0
) returns table (
  service_id uuid, name text, user_id uuid, email text, product text, created_at timestamptz, state text, service_state text,
  host text, last_seen_at timestamptz, reason text, provisioning_error text, restarts_24h integer, total_count bigint
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
    when 'state' then 'f.state' when 'created' then 'f.created_at' end;
  if sort_column is null then
    raise exception 'Unknown sort: %', p_sort;
  end if;
  return query execute format(
    'select f.service_id, f.name, f.user_id, f.email, f.product, f.created_at, f.state, f.service_state, f.host, f.last_seen_at,
            f.reason, f.provisioning_error, f.restarts_24h, count(*) over ()
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

create function public.admin_fleet_counts() returns table (state text, count integer)
language plpgsql stable security definer set search_path = ''
as $$
#variable_conflict use_column
begin
  perform private.require_aal2_if_enrolled();
  if not private.is_admin(auth.uid()) then
    raise exception 'Only admins can see the fleet' using errcode = '42501';
  end if;
  return query select f.state, count(*)::integer from private.fleet f group by 1 order by 1;
end
$$;
revoke all on function public.admin_fleet_counts() from public, anon;
grant execute on function public.admin_fleet_counts() to authenticated;
