-- Monthly statements (issue 38, item 2): every ledger line of a UTC month with its running balance,
-- between the opening and the closing balance, drawn on demand from the ledger, which never
-- changes. A suspension or a termination is a line without an amount: it explains the renewal
-- that was not charged. A service charge names the period it paid for, read from the event its
-- transaction recorded with it (the same now(): one transaction).

-- ---------------------------------------------------------------- the lines

-- The service events a statement shows as lines of their own.
create function private.is_statement_note(p_event text, p_detail jsonb) returns boolean
language sql immutable set search_path = ''
as $$
  select p_event = 'suspended' or (p_event = 'delete_requested' and p_detail ->> 'reason' = 'suspension_ended')
$$;
revoke all on function private.is_statement_note(text, jsonb) from public, anon, authenticated, service_role;

create function private.statement_lines(p_user uuid, p_from timestamptz, p_to timestamptz)
returns table (at timestamptz, kind text, description text, service_id uuid, period_start timestamptz,
               period_end timestamptz, amount numeric, reference text)
language sql stable set search_path = ''
as $$
  select t.created_at, t.type, t.description, t.service_id, p.period_start, p.period_end, t.amount, t.id::text
    from public.credit_transactions t
    left join lateral (
      select case when e.event = 'install_requested' then t.created_at
                  when e.event = 'extended' then (e.detail ->> 'renews_at')::timestamptz - make_interval(months => (e.detail ->> 'months')::int)
                  else (e.detail ->> 'renews_at')::timestamptz - pr.renew_interval::interval end as period_start,
             case when e.event = 'install_requested' then t.created_at + pr.renew_interval::interval
                  else (e.detail ->> 'renews_at')::timestamptz end as period_end
        from public.service_events e
        join private.services s on s.id = e.service_id
        left join public.products pr on pr.id = s.product_id
       where t.type = 'service_charge' and e.service_id = t.service_id and e.created_at = t.created_at
         and e.event in ('install_requested', 'renewed', 'extended')
       order by e.id desc limit 1) p on true
   where t.user_id = p_user and t.created_at >= p_from and t.created_at < p_to
  union all
  select e.created_at,
         case when e.event = 'suspended' then 'suspension' else 'termination' end,
         case when e.event = 'suspended' then format('%s suspended: the balance did not cover its renewal', s.name)
              else format('%s terminated: its suspension ended', s.name) end,
         e.service_id, null, null, null, null
    from public.service_events e
    join private.services s on s.id = e.service_id
   where e.user_id = p_user and e.created_at >= p_from and e.created_at < p_to and private.is_statement_note(e.event, e.detail)
$$;
revoke all on function private.statement_lines(uuid, timestamptz, timestamptz) from public, anon, authenticated, service_role;

-- ---------------------------------------------------------------- Billing › Statements

-- The caller's months with a line, newest first, with their opening and closing balances.
create function public.get_statement_months()
returns table (month text, opening numeric, closing numeric, lines bigint)
language plpgsql stable security definer set search_path = ''
as $$
#variable_conflict use_column
declare
  uid uuid := auth.uid();
begin
  perform private.require_aal2_if_enrolled();
  if uid is null then
    raise exception 'You must be logged in' using errcode = '42501';
  end if;
  return query
    with months as (
      select date_trunc('month', l.at at time zone 'UTC') as start, coalesce(sum(l.amount), 0) as total, count(*) as lines
        from private.statement_lines(uid, '-infinity', 'infinity') l
       group by 1)
    select to_char(m.start, 'YYYY-MM'),
           coalesce(sum(m.total) over (order by m.start rows between unbounded preceding and 1 preceding), 0),
           sum(m.total) over (order by m.start),
           m.lines
      from months m
     order by m.start desc;
end
$$;
revoke all on function public.get_statement_months() from public, anon;
grant execute on function public.get_statement_months() to authenticated;

-- The caller's statement for p_month ('YYYY-MM', a UTC month): the buyer as Account has them now,
-- the opening and closing balance and each line with the balance after it. A month without a line
-- has no statement.
create function public.get_statement(p_month text)
returns jsonb
language plpgsql stable security definer set search_path = ''
as $$
declare
  uid uuid := auth.uid();
  month_start timestamptz;
  month_end timestamptz;
  opening numeric;
  result jsonb;
begin
  perform private.require_aal2_if_enrolled();
  if uid is null then
    raise exception 'You must be logged in' using errcode = '42501';
  end if;
  if p_month is null or p_month !~ '^[0-9]{4}-(0[1-9]|1[0-2])$' then
    raise exception 'A statement month is written as YYYY-MM, for example 2026-10.' using errcode = '22023';
  end if;
  month_start := (p_month || '-01')::timestamp at time zone 'UTC';
  month_end := month_start + interval '1 month';
  select coalesce(sum(t.amount), 0) into opening
    from public.credit_transactions t where t.user_id = uid and t.created_at < month_start;
  select jsonb_build_object(
           'month', p_month, 'from', month_start, 'to', month_end, 'opening', opening,
           'closing', opening + coalesce(sum(l.amount), 0),
           'lines', jsonb_agg(jsonb_build_object(
             'at', l.at, 'kind', l.kind, 'description', l.description, 'service_id', l.service_id,
             'period_start', l.period_start, 'period_end', l.period_end, 'amount', l.amount,
             'balance', l.balance, 'reference', l.reference) order by l.at, l.amount is null, l.reference))
    into result
    from (select x.*,
                 opening + coalesce(sum(x.amount) over (order by x.at, x.amount is null, x.reference
                                                        rows between unbounded preceding and current row), 0) as balance
            from private.statement_lines(uid, month_start, month_end) x) l
   having count(*) > 0;
  if result is null then
    raise exception 'There is no statement for %: nothing happened on the account that month.', p_month using errcode = 'P0002';
  end if;
  return result || jsonb_build_object('buyer', (
    select jsonb_build_object('name', nullif(trim(regexp_replace(p.full_name, '[[:cntrl:]]+', ' ', 'g')), ''),
                              'email', u.email,
                              'company', nullif(trim(regexp_replace(p.company, '[[:cntrl:]]+', ' ', 'g')), ''),
                              'vat', nullif(trim(regexp_replace(p.company_vat, '[[:cntrl:]]+', ' ', 'g')), ''))
      from auth.users u left join public.profiles p on p.id = u.id
     where u.id = uid));
end
$$;
revoke all on function public.get_statement(text) from public, anon;
grant execute on function public.get_statement(text) to authenticated;

-- ---------------------------------------------------------------- the notice on the 1st

create or replace function private.require_notification_event(p_event text) returns void
language plpgsql immutable set search_path = ''
as $$
begin
  if p_event is null or p_event not in ('node_down', 'node_up', 'install_failed', 'suspension_warning',
                                        'termination_warning', 'low_balance', 'payment_received', 'security_notice',
                                        'statement_ready') then
    raise exception 'Unknown notification type' using errcode = '22023';
  end if;
end
$$;

-- A month whose notices have all been queued: the hourly task asks once and is done.
create table private.statement_notices (
  month date primary key,
  queued_at timestamptz not null default now()
);
alter table private.statement_notices enable row level security;
revoke all on private.statement_notices from public, anon, authenticated;

-- The customers with a line in [p_from, p_to), with their e-mail: whom the notice goes to.
create function private.statement_customers(p_from timestamptz, p_to timestamptz)
returns table (user_id uuid, email text)
language sql stable set search_path = ''
as $$
  select u.id, u.email::text
    from auth.users u
   where u.email is not null
     and u.id in (select t.user_id from public.credit_transactions t where t.created_at >= p_from and t.created_at < p_to
                  union
                  select e.user_id from public.service_events e
                   where e.created_at >= p_from and e.created_at < p_to and private.is_statement_note(e.event, e.detail))
   order by u.id
$$;
revoke all on function private.statement_customers(timestamptz, timestamptz) from public, anon, authenticated;
