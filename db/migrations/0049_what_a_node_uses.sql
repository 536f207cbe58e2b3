-- Issue 36, item 2 (docs/decisions/040): what a node uses. Each sweep of the node monitor also asks
-- the engine for the CPU, memory and network of the running nodes (Provisioner.usage, a bounded
-- number of engine calls) and hands them to private.record_node_usage, one call whatever their
-- number. Kept: a point per node per minute for 24 hours, and a point per hour for 30 days (the
-- minutes' averages), in rows of a few 4-byte columns; the same call drops what is older. The owner
-- (or an admin) reads them through public.service_usage, which finds another user's service as
-- absent as a missing one. USAGE_RANGES (src/shared/node-usage.ts) names the same periods.

-- ---------------------------------------------------------------- what is kept

-- One row per node per UTC minute: the averages of the samples taken within it (`samples` of them).
-- CPU as a percentage of the node's CPU limit, memory in MiB, the network in bytes per second
-- received (rx) and sent (tx) since the sample before; null: the engine gave no counter, or this
-- is the first sample of a run.
create table private.node_usage_minutes (
  service_id uuid not null references private.services (id) on delete cascade,
  minute timestamptz not null,
  samples smallint not null default 1,
  cpu_percent real not null check (cpu_percent >= 0),
  memory_mib real not null check (memory_mib >= 0),
  memory_limit_mib integer,
  rx_bytes_per_second real,
  tx_bytes_per_second real,
  primary key (service_id, minute)
);
-- The prune's: what passed 24 hours, at each sweep, found without reading the rest.
create index node_usage_minutes_minute_idx on private.node_usage_minutes (minute);
alter table private.node_usage_minutes enable row level security;
revoke all on private.node_usage_minutes from public, anon, authenticated, service_role;

-- One row per node per UTC hour: the averages of its minutes (`minutes` of them).
create table private.node_usage_hours (
  service_id uuid not null references private.services (id) on delete cascade,
  hour timestamptz not null,
  minutes smallint not null,
  cpu_percent real not null check (cpu_percent >= 0),
  memory_mib real not null check (memory_mib >= 0),
  memory_limit_mib integer,
  rx_bytes_per_second real,
  tx_bytes_per_second real,
  primary key (service_id, hour)
);
create index node_usage_hours_hour_idx on private.node_usage_hours (hour);
alter table private.node_usage_hours enable row level security;
revoke all on private.node_usage_hours from public, anon, authenticated, service_role;

-- A node's network counters at its last sample (bytes since its run began, as engines count them),
-- from which the next sample's rate is taken. A new run starts them again from 0.
create table private.node_usage_counters (
  service_id uuid primary key references private.services (id) on delete cascade,
  run text,
  rx_bytes double precision,
  tx_bytes double precision,
  sampled_at timestamptz not null
);
alter table private.node_usage_counters enable row level security;
revoke all on private.node_usage_counters from public, anon, authenticated, service_role;

-- A purchased service reused (deleted → installing) runs a new node: it starts with no points, and
-- none of the last node's (which the 24 hours and 30 days would otherwise still show).
create function private.forget_usage_of_a_reused_service() returns trigger
language plpgsql set search_path = ''
as $$
begin
  delete from private.node_usage_minutes where service_id = new.id;
  delete from private.node_usage_hours where service_id = new.id;
  delete from private.node_usage_counters where service_id = new.id;
  return null;
end
$$;
revoke all on function private.forget_usage_of_a_reused_service() from public;
create trigger services_forget_usage_when_reused after update of state on private.services
  for each row when (old.state = 'deleted' and new.state = 'installing') execute function private.forget_usage_of_a_reused_service();

-- The simulated driver's nodes keep their memory limit, so that their made-up usage fits within it.
alter table nodeharbor.simulated_nodes add column memory_mb integer;

-- ---------------------------------------------------------------- the sweep's call

-- p_samples: [{service_id, run, cpu_percent, memory_bytes, memory_limit_bytes, rx_bytes, tx_bytes}]
-- from the engine. A sample of a service that is not live (or not ours) is dropped. In order: what
-- is older than the periods kept goes; each sample joins its minute (a running average, since the
-- monitor may sweep more often than once a minute), with a network rate from the counters of the
-- node's last sample when that was of the same run, within 10 minutes, and counted up; then the
-- hour of each node sampled is made again from its minutes. Calls take turns (the advisory lock),
-- so two workers' sweeps in one minute average, never clash.
create function private.record_node_usage(p_samples jsonb) returns void
language sql set search_path = '' set jit = off
as $$
  select pg_advisory_xact_lock(hashtext('nodeharbor.record_node_usage'));

  delete from private.node_usage_minutes where minute < now() - interval '24 hours';
  delete from private.node_usage_hours where hour < now() - interval '30 days';

  with obs as (
    -- One sample per node: while a restart swaps its task, the engine may show two of its containers.
    select distinct on (o.service_id) o.service_id, o.run,
           least(greatest(coalesce(o.cpu_percent, 0), 0), 100) as cpu_percent,
           greatest(coalesce(o.memory_bytes, 0), 0) / 1048576 as memory_mib,
           round(o.memory_limit_bytes / 1048576)::integer as memory_limit_mib,
           o.rx_bytes, o.tx_bytes
      from jsonb_to_recordset(p_samples) as o(service_id uuid, run text, cpu_percent double precision, memory_bytes double precision,
                                              memory_limit_bytes double precision, rx_bytes double precision, tx_bytes double precision)
      join private.services s on s.id = o.service_id and s.state in ('active', 'expired', 'suspended')
     order by o.service_id, o.run desc nulls last
  ),
  c as (
    select obs.*,
           -- The same run, a moment ago: the counters grew by what went through since.
           case when p.service_id is not null and p.run is not distinct from obs.run
                 and now() - p.sampled_at between interval '1 second' and interval '10 minutes'
                then extract(epoch from now() - p.sampled_at) end as secs,
           p.rx_bytes as p_rx, p.tx_bytes as p_tx
      from obs
      left join private.node_usage_counters p on p.service_id = obs.service_id
  ),
  counters as (
    insert into private.node_usage_counters as k (service_id, run, rx_bytes, tx_bytes, sampled_at)
    select c.service_id, c.run, c.rx_bytes, c.tx_bytes, now() from c
    on conflict (service_id) do update
       set run = excluded.run, rx_bytes = excluded.rx_bytes, tx_bytes = excluded.tx_bytes, sampled_at = excluded.sampled_at
  ),
  rated as (
    select c.*,
           case when c.rx_bytes >= c.p_rx then (c.rx_bytes - c.p_rx) / c.secs end as rx_rate,
           case when c.tx_bytes >= c.p_tx then (c.tx_bytes - c.p_tx) / c.secs end as tx_rate
      from c
  )
  insert into private.node_usage_minutes as m (service_id, minute, samples, cpu_percent, memory_mib, memory_limit_mib,
                                               rx_bytes_per_second, tx_bytes_per_second)
  select r.service_id, date_trunc('minute', now()), 1, r.cpu_percent, r.memory_mib, r.memory_limit_mib, r.rx_rate, r.tx_rate
    from rated r
  on conflict on constraint node_usage_minutes_pkey do update
     set samples = m.samples + 1,
         cpu_percent = (m.cpu_percent * m.samples + excluded.cpu_percent) / (m.samples + 1),
         memory_mib = (m.memory_mib * m.samples + excluded.memory_mib) / (m.samples + 1),
         memory_limit_mib = coalesce(excluded.memory_limit_mib, m.memory_limit_mib),
         -- A rate missing from either side is no zero: the other one stands.
         rx_bytes_per_second = case when m.rx_bytes_per_second is null then excluded.rx_bytes_per_second
                                    when excluded.rx_bytes_per_second is null then m.rx_bytes_per_second
                                    else (m.rx_bytes_per_second * m.samples + excluded.rx_bytes_per_second) / (m.samples + 1) end,
         tx_bytes_per_second = case when m.tx_bytes_per_second is null then excluded.tx_bytes_per_second
                                    when excluded.tx_bytes_per_second is null then m.tx_bytes_per_second
                                    else (m.tx_bytes_per_second * m.samples + excluded.tx_bytes_per_second) / (m.samples + 1) end;

  -- A separate statement: it reads the minutes the one above wrote.
  insert into private.node_usage_hours as h (service_id, hour, minutes, cpu_percent, memory_mib, memory_limit_mib,
                                             rx_bytes_per_second, tx_bytes_per_second)
  select m.service_id, date_trunc('hour', now()), count(*), avg(m.cpu_percent), avg(m.memory_mib), max(m.memory_limit_mib),
         avg(m.rx_bytes_per_second), avg(m.tx_bytes_per_second)
    from private.node_usage_minutes m
   where m.service_id in (select (o ->> 'service_id')::uuid from jsonb_array_elements(p_samples) o)
     and m.minute >= date_trunc('hour', now())
   group by m.service_id
  on conflict on constraint node_usage_hours_pkey do update
     set minutes = excluded.minutes, cpu_percent = excluded.cpu_percent, memory_mib = excluded.memory_mib,
         memory_limit_mib = excluded.memory_limit_mib, rx_bytes_per_second = excluded.rx_bytes_per_second,
         tx_bytes_per_second = excluded.tx_bytes_per_second;
$$;
revoke all on function private.record_node_usage(jsonb) from public, anon, authenticated, service_role;

-- ---------------------------------------------------------------- what the owner reads

-- A service's points, oldest first: p_range '24h' the minutes of the last 24 hours, '30d' the hours
-- of the last 30 days. Its owner's, or any to an admin; another user's service, a deleted one or
-- one that never was is 'Service not found' (PT404: PostgREST answers 404), the same words for
-- each, so that an id tells a stranger nothing. Rounded to what a chart can show.
create function public.service_usage(p_service_id uuid, p_range text default '24h')
returns table (
  at timestamptz, cpu_percent real, memory_mib real, memory_limit_mib integer, rx_bytes_per_second real, tx_bytes_per_second real
)
language plpgsql stable security definer set search_path = ''
as $$
declare
  uid uuid := auth.uid();
begin
  perform private.require_aal2_if_enrolled();
  if uid is null or not private.is_live_user(uid) then
    raise exception 'You must be logged in' using errcode = '42501';
  end if;
  if p_range is null or p_range not in ('24h', '30d') then
    raise exception 'p_range must be 24h or 30d';
  end if;
  if not exists (select 1 from private.services s
                  where s.id = p_service_id and s.state <> 'deleted' and (s.user_id = uid or private.is_admin(uid))) then
    raise exception 'Service not found' using errcode = 'PT404';
  end if;
  if p_range = '24h' then
    return query
      select m.minute, round(m.cpu_percent::numeric, 1)::real, round(m.memory_mib::numeric, 1)::real, m.memory_limit_mib,
             round(m.rx_bytes_per_second::numeric)::real, round(m.tx_bytes_per_second::numeric)::real
        from private.node_usage_minutes m
       where m.service_id = p_service_id and m.minute > now() - interval '24 hours'
       order by m.minute;
  else
    return query
      select h.hour, round(h.cpu_percent::numeric, 1)::real, round(h.memory_mib::numeric, 1)::real, h.memory_limit_mib,
             round(h.rx_bytes_per_second::numeric)::real, round(h.tx_bytes_per_second::numeric)::real
        from private.node_usage_hours h
       where h.service_id = p_service_id and h.hour > now() - interval '30 days'
       order by h.hour;
  end if;
end
$$;
revoke all on function public.service_usage(uuid, text) from public, anon;
grant execute on function public.service_usage(uuid, text) to authenticated;
