-- The operator sees cost (issue 35, item 8; docs/decisions/036): what the provider charges a month
-- for a product's server, and each node's margin in the admin's fleet and user page. Anyone may read
-- a product row, so the cost lives in a table of its own that only the admins' functions read.

-- ---------------------------------------------------------------- costs

create table private.product_costs (
  product_id uuid primary key references public.products (id) on delete cascade,
  -- In USD, as prices are; what one node of the product costs us a month.
  monthly_cost_usd numeric(10, 2) not null check (monthly_cost_usd between 0 and 100000),
  -- What the figure is: the provider, the server type and the date of its price.
  basis text not null check (char_length(basis) between 1 and 300),
  updated_at timestamptz not null default now()
);
alter table private.product_costs enable row level security;
revoke all on private.product_costs from public, anon, authenticated, service_role;

-- ---------------------------------------------------------------- Town Star's server

-- Hetzner no longer sells cx22 to new orders; cx23 (2 vCPU, 4 GB, 40 GB) is its successor. The
-- seeded rows move with db/seed/0001_products.sql; a server type an operator chose stays.
update public.products
   set machine_server_type = 'cx23'
 where id in ('00000000-0000-4000-8000-000000000001', '00000000-0000-4000-8000-000000000002')
   and machine_server_type = 'cx22';

-- Their costs are seeded (db/seed/0002_product_costs.sql, on every start): cx23's price, only while
-- a product still rents one.

-- ---------------------------------------------------------------- the margin

-- How many months one renewal pays for ('3 MONTH' → 3, '15 DAYS' → 0.5, '1 YEAR' → 12);
-- null for a one-time product (products.renew_interval's form, 0002).
create function private.months_in(p_interval text) returns numeric
language sql immutable set search_path = ''
as $$
  select case
    when p_interval ~ '^[0-9]+ MONTHS?$' then split_part(p_interval, ' ', 1)::numeric
    when p_interval ~ '^[0-9]+ DAYS?$' then split_part(p_interval, ' ', 1)::numeric / 30
    when p_interval ~ '^[0-9]+ YEARS?$' then split_part(p_interval, ' ', 1)::numeric * 12
  end
$$;
-- Like the other private helpers (0003), for the database's own functions only.
revoke execute on function private.months_in(text) from public, anon, authenticated;

-- As in 0019, with monthly_margin at the end: what a node earns a month less what its server costs,
-- in USD. A paying service (installing, active) brings its price a month; a suspended or expired one
-- brings nothing and still costs its whole price (Hetzner bills a server that is powered off). A
-- one-time product brings nothing a month. Null without a cost, or without a node (failed, deleting).
create or replace view private.fleet as
select s.id as service_id, s.name, s.user_id, u.email::text as email, p.name as product, s.created_at,
       coalesce(private.node_state_of(s.state, n.state, m.swept_at), s.state::text) as state,
       s.state::text as service_state, n.host,
       case when n.state = 'online' then m.swept_at else n.last_seen_at end as last_seen_at, n.reason, s.provisioning_error,
       coalesce(r.restarts, 0) as restarts_24h,
       case when s.state in ('installing', 'active')
              then round(coalesce(p.price / nullif(private.months_in(p.renew_interval), 0), 0) - c.monthly_cost_usd, 2)
            when s.state in ('suspended', 'expired') then -c.monthly_cost_usd
       end as monthly_margin
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

-- As in 0019, with monthly_margin and its sort ('margin'). Its columns change, so it is made again,
-- with the same grants.
drop function public.admin_fleet(text, text, boolean, integer, integer);
create function public.admin_fleet(
  p_state text default null, p_sort text default 'last_seen', p_descending boolean default true,
  p_limit integer default 100, p_offset integer default 0
) returns table (
  service_id uuid, name text, user_id uuid, email text, product text, created_at timestamptz, state text, service_state text,
  host text, last_seen_at timestamptz, reason text, provisioning_error text, restarts_24h integer, monthly_margin numeric,
  total_count bigint
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
            f.reason, f.provisioning_error, f.restarts_24h, f.monthly_margin, count(*) over ()
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

-- As in 0024, with each service's monthly_margin.
create or replace function public.admin_user(p_user_id uuid) returns jsonb
language plpgsql stable security definer set search_path = ''
as $$
declare
  result jsonb;
begin
  perform private.require_aal2_if_enrolled();
  if not private.is_admin(auth.uid()) then
    raise exception 'Only admins can manage users' using errcode = '42501';
  end if;
  select jsonb_build_object(
           'id', u.id,
           'email', u.email,
           'full_name', p.full_name,
           'created_at', u.created_at,
           'last_sign_in_at', u.last_sign_in_at,
           'email_confirmed_at', u.email_confirmed_at,
           'is_admin', exists (select 1 from public.admin_users a where a.user_id = u.id),
           'has_dev_access', exists (select 1 from public.dev_access_users d where d.user_id = u.id),
           'suspended', coalesce(u.banned_until > now(), false),
           -- Null while suspended means until reactivated ('infinity' is no date a browser reads).
           'suspended_until', case when u.banned_until > now() and u.banned_until <> 'infinity' then u.banned_until end,
           'second_factor', exists (select 1 from auth.mfa_factors m where m.user_id = u.id and m.status = 'verified'),
           'balance', coalesce((select c.balance from public.user_credits c where c.user_id = u.id), 0),
           'services', coalesce((
             select jsonb_agg(jsonb_build_object(
                      'id', f.service_id, 'name', f.name, 'product', f.product, 'created_at', f.created_at,
                      'renews_at', s.renews_at, 'service_state', f.service_state,
                      'node_state', case when f.service_state in ('active', 'expired', 'suspended') then f.state end,
                      'host', f.host, 'last_seen_at', f.last_seen_at, 'reason', f.reason,
                      'provisioning_error', f.provisioning_error, 'restarts_24h', f.restarts_24h,
                      'monthly_margin', f.monthly_margin)
                    order by f.created_at desc, f.service_id)
               from private.fleet f join private.services s on s.id = f.service_id
              where f.user_id = u.id), '[]'::jsonb),
           'counts', jsonb_build_object(
             'transactions', (select count(*) from public.credit_transactions t where t.user_id = u.id),
             'purchases', (select count(*) from public.credit_purchases cp where cp.user_id = u.id),
             'events', (select count(*) from public.service_events e where e.user_id = u.id)))
    into result
    from auth.users u
    left join public.profiles p on p.id = u.id
   where u.id = p_user_id and u.deleted_at is null;
  -- Null for an unknown or closed account: the page says so (a 404 would be a failed request).
  return result;
end
$$;
