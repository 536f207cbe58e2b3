-- The admin's user list (get_user_stats) in time that does not grow with the number of users
-- (issue 7, bench/README.md): it counted and sorted every user to show one page. Now the page is
-- read from an index in the list's order, and the total without a search comes from a counter
-- kept by triggers. A search still counts its matches (a substring of the e-mail has no index).
-- Deleted accounts (0011, decision 006) are not users: neither listed nor counted.

-- ---------------------------------------------------------------- the counter

create table private.user_count (
  id boolean primary key default true check (id),
  n bigint not null
);
alter table private.user_count enable row level security;
revoke all on private.user_count from public, anon, authenticated, service_role;
insert into private.user_count (n) select count(*) from auth.users where deleted_at is null;

-- Per statement, with the statement's rows: a bulk import moves the counter once.
create function private.count_users() returns trigger
language plpgsql security definer set search_path = ''
as $$
begin
  if tg_op = 'INSERT' then
    update private.user_count set n = n + (select count(*) from new_rows where deleted_at is null);
  elsif tg_op = 'DELETE' then
    update private.user_count set n = n - (select count(*) from old_rows where deleted_at is null);
  else
    update private.user_count set n = 0;
  end if;
  return null;
end
$$;
revoke all on function private.count_users() from public;
create trigger users_counted_on_insert after insert on auth.users
  referencing new table as new_rows for each statement execute function private.count_users();
create trigger users_counted_on_delete after delete on auth.users
  referencing old table as old_rows for each statement execute function private.count_users();
create trigger users_counted_on_truncate after truncate on auth.users
  for each statement execute function private.count_users();

-- An account deleted (or, by hand, restored) leaves (or rejoins) the count. Per row, and only when
-- deleted_at changes: sign-ins update auth.users far more often.
create function private.count_deleted_user() returns trigger
language plpgsql security definer set search_path = ''
as $$
begin
  update private.user_count set n = n + case when new.deleted_at is null then 1 else -1 end;
  return null;
end
$$;
revoke all on function private.count_deleted_user() from public;
create trigger users_counted_on_deletion after update of deleted_at on auth.users
  for each row when ((old.deleted_at is null) <> (new.deleted_at is null)) execute function private.count_deleted_user();

-- ---------------------------------------------------------------- the list's order, indexed

-- auth.users is Supabase's on a hosted project, where we may not be allowed to index it: the list
-- then stays correct, only slower.
do $$
begin
  create index users_created_at_id_idx on auth.users (created_at desc, id) where deleted_at is null;
exception when insufficient_privilege then
  raise notice 'auth.users cannot be indexed here: the user list will sort every user';
end
$$;

-- ---------------------------------------------------------------- the list

create or replace function public.get_user_stats(p_search text default null, p_limit integer default 50, p_offset integer default 0)
returns table (
  user_id uuid, email text, full_name text, active_services_count integer,
  last_sign_in_at timestamptz, created_at timestamptz, total_count integer
)
language plpgsql stable security definer set search_path = ''
as $$
#variable_conflict use_column
declare
  pattern text;
  total integer;
begin
  if not private.is_admin(auth.uid()) then
    raise exception 'Only admins can list users' using errcode = '42501';
  end if;
  if p_limit is null or p_limit < 1 or p_limit > 500 or p_offset is null or p_offset < 0 then
    raise exception 'p_limit must be 1 to 500 and p_offset at least 0';
  end if;
  if coalesce(p_search, '') <> '' then
    pattern := '%' || replace(replace(replace(p_search, '\', '\\'), '%', '\%'), '_', '\_') || '%';
    select count(*) into total from auth.users u where u.deleted_at is null and u.email ilike pattern;
  else
    select c.n into total from private.user_count c;
  end if;
  -- The page first (limit over the index, no search), then its names and counts: one row each.
  return query
    select p.id, p.email::text, pr.full_name,
           (select count(*)::int from private.services s
             where s.user_id = p.id and not s.is_deleted and not s.is_deleting and not s.expired),
           p.last_sign_in_at, p.created_at, total
      from (select u.id, u.email, u.last_sign_in_at, u.created_at
              from auth.users u
             where u.deleted_at is null and (pattern is null or u.email ilike pattern)
             order by u.created_at desc, u.id
             limit p_limit offset p_offset) p
      left join public.profiles pr on pr.id = p.id
     order by p.created_at desc, p.id;
end
$$;
