-- Issue 37, item 3 (docs/decisions/045): the public status page. Incidents that admins open and
-- follow with updates (a posted update is never changed, only followed by another); each
-- product's fleet availability per UTC day, rolled up from the monitor's own rows (node_uptime)
-- after every sweep; the server's own probe of its API, one row a minute; and the one summary the
-- page reads, which holds no customer, no node and no count.
-- The words are src/shared/status-page.ts's statusPageMessages, word for word.

-- ---------------------------------------------------------------- incidents

create table private.status_incidents (
  id bigint generated always as identity primary key,
  title text not null check (char_length(btrim(title)) between 1 and 120),
  -- A product family (products.base_product_code), or null: the whole service.
  product_code text,
  impact text not null check (impact in ('minor', 'major', 'maintenance')),
  opened_at timestamptz not null default now(),
  resolved_at timestamptz
);
create index status_incidents_opened_idx on private.status_incidents (opened_at desc);
alter table private.status_incidents enable row level security;
revoke all on private.status_incidents from public, anon, authenticated, service_role;

-- Who posted is in the audit log; here, what the public reads.
create table private.status_incident_updates (
  id bigint generated always as identity primary key,
  incident_id bigint not null references private.status_incidents (id),
  status text not null check (status in ('investigating', 'identified', 'monitoring', 'resolved')),
  body text not null check (char_length(btrim(body)) between 1 and 2000),
  posted_at timestamptz not null default now()
);
create index status_incident_updates_incident_idx on private.status_incident_updates (incident_id, posted_at desc);
alter table private.status_incident_updates enable row level security;
revoke all on private.status_incident_updates from public, anon, authenticated, service_role;

create function private.refuse_status_update_change() returns trigger
language plpgsql set search_path = ''
as $$
begin
  raise exception 'A posted update is never changed: post another' using errcode = '42501';
end
$$;
revoke all on function private.refuse_status_update_change() from public, anon, authenticated, service_role;
create trigger status_incident_updates_append_only before update or delete on private.status_incident_updates
  for each row execute function private.refuse_status_update_change();
create trigger status_incident_updates_no_truncate before truncate on private.status_incident_updates
  for each statement execute function private.refuse_status_update_change();

-- The checks both functions make of an update's words and status.
create function private.check_status_update(p_status text, p_body text) returns void
language plpgsql immutable set search_path = ''
as $$
begin
  if p_status is null or p_status not in ('investigating', 'identified', 'monitoring', 'resolved') then
    raise exception 'Choose a status: investigating, identified, monitoring or resolved';
  end if;
  if coalesce(btrim(p_body), '') = '' then
    raise exception 'Say what is happening';
  end if;
  if char_length(p_body) > 2000 then
    raise exception 'An update may be at most 2000 characters';
  end if;
end
$$;
revoke all on function private.check_status_update(text, text) from public, anon, authenticated, service_role;

create function private.require_status_admin() returns void
language plpgsql security definer set search_path = ''
as $$
begin
  if not private.is_admin(auth.uid()) then
    raise exception 'Only admins can post to the status page' using errcode = '42501';
  end if;
end
$$;
revoke all on function private.require_status_admin() from public, anon, authenticated, service_role;

-- Opens an incident with its first update; its id.
create function public.open_status_incident(p_title text, p_product_code text, p_impact text, p_status text, p_body text)
returns bigint
language plpgsql security definer set search_path = ''
as $$
declare
  new_id bigint;
begin
  perform private.require_aal2_if_enrolled();
  perform private.require_status_admin();
  if coalesce(btrim(p_title), '') = '' then
    raise exception 'Give the incident a title';
  end if;
  if char_length(p_title) > 120 then
    raise exception 'The title may be at most 120 characters';
  end if;
  if p_impact is null or p_impact not in ('minor', 'major', 'maintenance') then
    raise exception 'Choose the impact: minor, major or maintenance';
  end if;
  if p_product_code is not null and not exists (select 1 from public.products p where p.base_product_code = p_product_code) then
    raise exception 'No such product';
  end if;
  perform private.check_status_update(p_status, p_body);
  insert into private.status_incidents (title, product_code, impact, resolved_at)
  values (btrim(p_title), p_product_code, p_impact, case when p_status = 'resolved' then now() end)
  returning id into new_id;
  insert into private.status_incident_updates (incident_id, status, body) values (new_id, p_status, btrim(p_body));
  perform private.record_admin_action('status.incident_open', 'incident', new_id::text, btrim(p_title), null,
    jsonb_build_object('impact', p_impact, 'product', p_product_code, 'status', p_status));
  return new_id;
end
$$;
revoke all on function public.open_status_incident(text, text, text, text, text) from public, anon, authenticated, service_role;
grant execute on function public.open_status_incident(text, text, text, text, text) to authenticated;

-- Follows an open incident with an update; 'resolved' closes it.
create function public.post_status_update(p_incident_id bigint, p_status text, p_body text)
returns void
language plpgsql security definer set search_path = ''
as $$
declare
  inc private.status_incidents;
begin
  perform private.require_aal2_if_enrolled();
  perform private.require_status_admin();
  select * into inc from private.status_incidents where id = p_incident_id for update;
  if not found then
    raise exception 'No such incident' using errcode = 'PT404';
  end if;
  if inc.resolved_at is not null then
    raise exception 'This incident is resolved: open a new one' using errcode = 'PT409';
  end if;
  perform private.check_status_update(p_status, p_body);
  insert into private.status_incident_updates (incident_id, status, body) values (inc.id, p_status, btrim(p_body));
  if p_status = 'resolved' then
    update private.status_incidents set resolved_at = now() where id = inc.id;
  end if;
  perform private.record_admin_action('status.incident_update', 'incident', inc.id::text, inc.title, null,
    jsonb_build_object('status', p_status));
end
$$;
revoke all on function public.post_status_update(bigint, text, text) from public, anon, authenticated, service_role;
grant execute on function public.post_status_update(bigint, text, text) to authenticated;

-- ---------------------------------------------------------------- fleet availability

-- Per product family and UTC day: the paid nodes' online and observed seconds, summed, and how
-- many nodes they were (never shown: the page needs it only to hold back a day below the floor).
create table private.fleet_availability_days (
  product_code text not null,
  day date not null,
  seconds_online double precision not null check (seconds_online >= 0),
  seconds_observed double precision not null check (seconds_observed >= seconds_online),
  nodes integer not null check (nodes > 0),
  primary key (product_code, day)
);
alter table private.fleet_availability_days enable row level security;
revoke all on private.fleet_availability_days from public, anon, authenticated, service_role;

-- Today's and yesterday's rows drawn again from node_uptime (yesterday's last sweep may have come
-- after its last refresh), and rows older than the page's 90 days gone. Run after every monitor sweep.
-- Counted: active services whose owner has not stopped the node; a node its owner stops, or that
-- waits for a renewal, is not down.
create function private.refresh_fleet_availability() returns void
language sql security definer set search_path = ''
as $$
  delete from private.fleet_availability_days
   where day >= (now() at time zone 'UTC')::date - 1 or day <= (now() at time zone 'UTC')::date - 90;
  insert into private.fleet_availability_days (product_code, day, seconds_online, seconds_observed, nodes)
  select coalesce(p.base_product_code, p.id::text), u.day, sum(u.seconds_online), sum(u.seconds_observed), count(*)::integer
    from private.node_uptime u
    join private.services s on s.id = u.service_id
    join public.products p on p.id = s.product_id
   where u.day >= (now() at time zone 'UTC')::date - 1
     and s.state = 'active' and s.stopped_at is null and u.seconds_observed > 0
   group by 1, 2;
$$;
revoke all on function private.refresh_fleet_availability() from public, anon, authenticated, service_role;

-- ---------------------------------------------------------------- the API's own probe

create table private.api_probe_minutes (
  minute timestamptz primary key,
  ok boolean not null,
  latency_ms integer not null check (latency_ms >= 0)
);
alter table private.api_probe_minutes enable row level security;
revoke all on private.api_probe_minutes from public, anon, authenticated, service_role;

create function private.record_api_probe(p_ok boolean, p_latency_ms integer) returns void
language sql security definer set search_path = ''
as $$
  insert into private.api_probe_minutes (minute, ok, latency_ms)
  values (date_trunc('minute', now()), p_ok, greatest(p_latency_ms, 0))
  on conflict (minute) do update set ok = excluded.ok and private.api_probe_minutes.ok, latency_ms = greatest(excluded.latency_ms, private.api_probe_minutes.latency_ms);
  delete from private.api_probe_minutes where minute < now() - interval '90 days';
$$;
revoke all on function private.record_api_probe(boolean, integer) from public, anon, authenticated, service_role;

-- ---------------------------------------------------------------- what the page reads

-- The page's figures: per product family on sale, its availability today and over 90 days and
-- per day, null for a day with fewer than p_min_nodes nodes (and over 90 days, only such days
-- count); the API's share of good minutes, the same way; the incidents of the last 90 days and
-- every open one, with their updates, newest first. No count of nodes leaves this function.
create function private.status_summary(p_min_nodes integer) returns jsonb
language sql stable security definer set search_path = ''
as $$
  with today as (select (now() at time zone 'UTC')::date as d),
  families as (
    select coalesce(p.base_product_code, p.id::text) as code, (array_agg(p.name order by p.id))[1] as name
      from public.products p where p.is_active group by 1),
  counted as (
    select f.product_code, f.day, f.seconds_online, f.seconds_observed
      from private.fleet_availability_days f, today
     where f.day > today.d - 90 and f.nodes >= p_min_nodes),
  probes as (
    select (m.minute at time zone 'UTC')::date as day, count(*) filter (where m.ok) as good, count(*) as total
      from private.api_probe_minutes m, today
     where m.minute >= (today.d - 89)::timestamp at time zone 'UTC'
     group by 1)
  select jsonb_build_object(
    'generated_at', now(),
    'products', (
      select coalesce(jsonb_agg(jsonb_build_object(
               'code', fam.code,
               'name', fam.name,
               'today', (select round((100 * c.seconds_online / c.seconds_observed)::numeric, 2)
                           from counted c, today where c.product_code = fam.code and c.day = today.d),
               'ninety_days', (select round((100 * sum(c.seconds_online) / nullif(sum(c.seconds_observed), 0))::numeric, 2)
                                 from counted c where c.product_code = fam.code),
               'days', (select coalesce(jsonb_agg(jsonb_build_object('day', c.day, 'availability',
                                 round((100 * c.seconds_online / c.seconds_observed)::numeric, 2)) order by c.day), '[]'::jsonb)
                          from counted c where c.product_code = fam.code)
             ) order by fam.name), '[]'::jsonb)
        from families fam),
    'api', jsonb_build_object(
      'today', (select round((100.0 * p.good / p.total)::numeric, 2) from probes p, today where p.day = today.d),
      'ninety_days', (select round((100.0 * sum(p.good) / nullif(sum(p.total), 0))::numeric, 2) from probes p),
      'last_ok', (select m.ok from private.api_probe_minutes m order by m.minute desc limit 1),
      'days', (select coalesce(jsonb_agg(jsonb_build_object('day', p.day, 'availability', round((100.0 * p.good / p.total)::numeric, 2)) order by p.day), '[]'::jsonb)
                 from probes p)),
    'incidents', (
      select coalesce(jsonb_agg(jsonb_build_object(
               'id', i.id, 'title', i.title, 'impact', i.impact, 'product_code', i.product_code,
               'opened_at', i.opened_at, 'resolved_at', i.resolved_at,
               'updates', (select jsonb_agg(jsonb_build_object('status', u.status, 'body', u.body, 'posted_at', u.posted_at) order by u.posted_at desc, u.id desc)
                             from private.status_incident_updates u where u.incident_id = i.id)
             ) order by i.opened_at desc), '[]'::jsonb)
        from private.status_incidents i
       where i.resolved_at is null or i.opened_at > now() - interval '90 days')
  )
$$;
revoke all on function private.status_summary(integer) from public, anon, authenticated, service_role;

-- The admin area's "Status page" tab: the product families to choose from and the incidents, as
-- the page shows them but never from its cache, so an admin sees their post at once.
create function public.admin_status_page() returns jsonb
language plpgsql stable security definer set search_path = ''
as $$
declare
  summary jsonb;
begin
  perform private.require_aal2_if_enrolled();
  perform private.require_status_admin();
  summary := private.status_summary(1);
  return jsonb_build_object(
    'products', (select coalesce(jsonb_agg(jsonb_build_object('code', p ->> 'code', 'name', p ->> 'name')), '[]'::jsonb)
                   from jsonb_array_elements(summary -> 'products') p),
    'incidents', summary -> 'incidents');
end
$$;
revoke all on function public.admin_status_page() from public, anon, authenticated, service_role;
grant execute on function public.admin_status_page() to authenticated;
