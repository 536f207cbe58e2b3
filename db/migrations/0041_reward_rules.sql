-- Each network's reward rule, as data on its product (issue 34, item 3; docs/decisions/033).
-- Playa3ull rewards a Master Node that is online at least 8 hours within each UTC day: the rule is
-- daily_threshold, and uptime_threshold_seconds (0019) holds the hours. Gala has had no daily
-- minimum since March 2024: continuous uptime is rewarded, and a licence may pair with another node
-- after about 10 minutes offline. Its rule is continuous: the owner sees the node's online streaks,
-- and the down alert goes out before the licence can move (down_alert_minutes, with what is at
-- stake in down_alert_note). A rule changes with the product's row, not the code.

-- ---------------------------------------------------------------- products

-- The rule follows from the threshold, so the two can never disagree: a product with hours to
-- reach each UTC day has a daily threshold, one without is rewarded for continuous uptime.
alter table public.products
  add column reward_rule text not null
    generated always as (case when uptime_threshold_seconds is null then 'continuous' else 'daily_threshold' end) stored,
  -- Minutes down before the owner is mailed; null: NODE_DOWN_ALERT_MINUTES.
  add column down_alert_minutes integer check (down_alert_minutes between 1 and 1440),
  -- What the down mail says is at stake for this network; null: nothing more.
  add column down_alert_note text check (char_length(down_alert_note) between 1 and 300);

update public.products
   set down_alert_minutes = 5,
       down_alert_note = 'After about 10 minutes offline, Gala may pair your licence with another node.'
 where base_product_code = 'TOWNSTAR' and down_alert_minutes is null and down_alert_note is null;

-- ---------------------------------------------------------------- streaks

-- Since when the node's current run has been online without a break; null while it is not online.
alter table private.node_status add column online_since timestamptz;
-- A node online now has been on its run since it last came online or was restarted, at the latest.
update private.node_status n
   set online_since = coalesce((select max(e.created_at) from public.service_events e
                                 where e.service_id = n.service_id and e.event in ('node_online', 'node_restarted')), n.changed_at)
 where n.state = 'online';

-- The longest streak within the UTC day: the part of it that fell on that day.
alter table private.node_uptime
  add column longest_streak_seconds double precision not null default 0 check (longest_streak_seconds between 0 and 86400);

-- ---------------------------------------------------------------- the sweep

-- As in 0019, and: an incident opens after the product's own alert delay when it has one, the
-- current streak is kept in node_status.online_since, and each day's longest streak in its
-- node_uptime row.
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
           case when o.service_id is not null then o.state when s.state = 'active' then 'offline' else 'stopped' end as state,
           o.task_id, o.host, o.exit_code,
           case when o.service_id is null and s.state = 'active' then 'The node is missing from the engine' else o.reason end as reason,
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

-- ---------------------------------------------------------------- what the owner reads

-- As in 0037, with online_since at the end: the current streak, while the node is online.
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
       (select n.online_since from private.node_status n where n.service_id = r.id) as online_since
  from private.service_rows r
 where r.user_id = auth.uid() and (select private.meets_required_aal());

create or replace view public.services with (security_invoker = true) as select * from private.own_services;

-- As in 0019 (moved to private by 0033), with the rule and the day's longest streak at the end.
create or replace view private.own_service_uptime with (security_barrier) as
select u.service_id, u.day, round(u.seconds_online)::integer as seconds_online, round(u.seconds_observed)::integer as seconds_observed,
       (select p.uptime_threshold_seconds from private.services s join public.products p on p.id = s.product_id
         where s.id = u.service_id) as threshold_seconds,
       u.seconds_online >= (select p.uptime_threshold_seconds from private.services s join public.products p on p.id = s.product_id
                             where s.id = u.service_id) as meets_threshold,
       (select p.reward_rule from private.services s join public.products p on p.id = s.product_id
         where s.id = u.service_id) as reward_rule,
       round(u.longest_streak_seconds)::integer as longest_streak_seconds
  from private.node_uptime u
 where u.service_id in (select s.id from private.services s where s.user_id = auth.uid())
   and (select private.meets_required_aal());

create or replace view public.service_uptime with (security_invoker = true) as select * from private.own_service_uptime;
