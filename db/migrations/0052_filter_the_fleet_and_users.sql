-- Issue 36, item 7: the admin's fleet filters by owner, service name, product and host, and the
-- user list by e-mail or full name. Both page on the server (FLEET_PAGE_SIZE, 20 users a page), so
-- the filter is applied here, before the page is cut, and the total counts what it matched.
-- One text, as the search box has it: any of the columns holding it (any case) is a match.

-- As in 0050, with p_search. Its arguments change, so it is made again, with the same grants.
drop function public.admin_fleet(text, text, boolean, integer, integer);
create function public.admin_fleet(
  p_state text default null, p_sort text default 'last_seen', p_descending boolean default true,
  p_limit integer default 100, p_offset integer default 0, p_search text default null
) returns table (
  service_id uuid, name text, user_id uuid, email text, product text, created_at timestamptz, state text, service_state text,
  host text, last_seen_at timestamptz, reason text, provisioning_error text, restarts_24h integer, monthly_margin numeric,
  stopped_at timestamptz, install_refunded boolean, total_count bigint
)
language plpgsql stable security definer set search_path = ''
as $$
declare
  sort_column text;
  pattern text;
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
  -- The caller's text is a value ($4), never SQL; its % and _ are matched as themselves.
  if btrim(coalesce(p_search, '')) <> '' then
    pattern := '%' || replace(replace(replace(btrim(p_search), '\', '\\'), '%', '\%'), '_', '\_') || '%';
  end if;
  return query execute format(
    'select f.service_id, f.name, f.user_id, f.email, f.product, f.created_at, f.state, f.service_state, f.host, f.last_seen_at,
            f.reason, f.provisioning_error, f.restarts_24h, f.monthly_margin, f.stopped_at, f.install_refunded, count(*) over ()
       from private.fleet f
      where ($1 is null or f.state = $1)
        and ($4 is null or f.name ilike $4 or f.email ilike $4 or f.product ilike $4 or f.host ilike $4)
      order by %s %s nulls last, f.service_id
      limit $2 offset $3',
    sort_column, case when coalesce(p_descending, true) then 'desc' else 'asc' end)
    using p_state, p_limit, p_offset, pattern;
end
$$;
revoke all on function public.admin_fleet(text, text, boolean, integer, integer, text) from public, anon;
grant execute on function public.admin_fleet(text, text, boolean, integer, integer, text) to authenticated;

-- As in 0029, with the full name searched as well as the e-mail.
create or replace function public.get_user_stats(p_search text default null, p_limit integer default 50, p_offset integer default 0)
returns table (
  user_id uuid, email text, full_name text, active_services_count integer,
  last_sign_in_at timestamptz, created_at timestamptz, total_count integer, balance numeric
)
language plpgsql stable security definer set search_path = ''
as $$
#variable_conflict use_column
declare
  pattern text;
  total integer;
begin
  perform private.require_aal2_if_enrolled();
  if not private.is_admin(auth.uid()) then
    raise exception 'Only admins can list users' using errcode = '42501';
  end if;
  if p_limit is null or p_limit < 1 or p_limit > 500 or p_offset is null or p_offset < 0 then
    raise exception 'p_limit must be 1 to 500 and p_offset at least 0';
  end if;
  if coalesce(p_search, '') <> '' then
    pattern := '%' || replace(replace(replace(p_search, '\', '\\'), '%', '\%'), '_', '\_') || '%';
    select count(*) into total from auth.users u
     where u.deleted_at is null
       and (u.email ilike pattern or exists (select 1 from public.profiles pr where pr.id = u.id and pr.full_name ilike pattern));
  else
    select c.n into total from private.user_count c;
  end if;
  -- The page first (limit over the index, no search), then its names and counts: one row each.
  return query
    select p.id, p.email::text, pr.full_name,
           (select count(*)::int from private.services s
             where s.user_id = p.id and s.state in ('installing', 'active')),
           p.last_sign_in_at, p.created_at, total,
           coalesce((select c.balance from public.user_credits c where c.user_id = p.id), 0)
      from (select u.id, u.email, u.last_sign_in_at, u.created_at
              from auth.users u
             where u.deleted_at is null
               and (pattern is null or u.email ilike pattern
                    or exists (select 1 from public.profiles pn where pn.id = u.id and pn.full_name ilike pattern))
             order by u.created_at desc, u.id
             limit p_limit offset p_offset) p
      left join public.profiles pr on pr.id = p.id
     order by p.created_at desc, p.id;
end
$$;
