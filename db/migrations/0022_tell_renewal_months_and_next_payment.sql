-- Issue 17: the event history says how long a renewal bought ("Renewed for 3 months"), and the
-- overview's Next Payment shows the next renewal's date and amount.

-- ---------------------------------------------------------------- renewal

-- Months in a plan's renewal interval ('1 MONTH' → 1, '3 MONTH' → 3); null for one not counted in months.
create function private.interval_months(p_interval text) returns integer
language sql immutable set search_path = ''
as $$
  select nullif((extract(year from p_interval::interval) * 12 + extract(month from p_interval::interval))::integer, 0)
$$;
revoke all on function private.interval_months(text) from public, anon, authenticated, service_role;

-- As in 0014, with the renewed months in the event's detail.
create or replace function private.renew_service(p_service_id uuid) returns text
language plpgsql security definer set search_path = ''
as $$
declare
  owner_id uuid;
  svc private.services;
  product public.products;
  next_at timestamptz;
begin
  select user_id into owner_id from private.services where id = p_service_id;
  if owner_id is null then
    return 'not_due';
  end if;
  -- The credit row first, as every other writer does, then the service: no deadlock.
  perform 1 from public.user_credits where user_id = owner_id for update;
  select * into svc from private.services where id = p_service_id for update;
  if svc.state <> 'active' or svc.renews_at is null or svc.renews_at > now() then
    return 'not_due';
  end if;
  select * into product from public.products where id = svc.product_id;
  if product.id is null or product.renew_interval is null then
    update private.services set state = 'expired' where id = svc.id;
    perform private.expire_node(svc.id, 'no renewing plan');
    return 'expired';
  end if;
  if product.price > 0 and not private.post_transaction(
      svc.user_id, -product.price, 'service_charge', format('Service renewal for %s (%s)', svc.name, product.name), svc.id,
      'service-renew:' || svc.id::text || ':' || to_char(svc.renews_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US')) then
    update private.services set state = 'expired' where id = svc.id;
    perform private.expire_node(svc.id, 'balance too low');
    return 'expired';
  end if;
  -- The next period follows the last one; after a long outage it starts now, so no dead time is sold.
  next_at := svc.renews_at + product.renew_interval::interval;
  if next_at <= now() then
    next_at := now() + product.renew_interval::interval;
  end if;
  update private.services set renews_at = next_at, updated_at = now() where id = svc.id;
  perform private.record_service_event(svc.id, 'renewed',
    jsonb_strip_nulls(jsonb_build_object('charged', product.price, 'renews_at', next_at,
                                         'months', private.interval_months(product.renew_interval))));
  return 'renewed';
end
$$;

-- ---------------------------------------------------------------- next payment

-- The caller's next renewal that will cost something: the earliest renewal date among their active
-- services on a paid, renewing plan (what private.renew_service will charge then). No row when none
-- renews. SECURITY DEFINER: a plan no longer on sale is not readable to its customers, yet renews.
create function public.get_next_payment()
returns table (service_id uuid, service_name text, renews_at timestamptz, amount numeric)
language plpgsql stable security definer set search_path = ''
as $$
#variable_conflict use_column
begin
  perform private.require_aal2_if_enrolled();
  if auth.uid() is null then
    raise exception 'You must be logged in' using errcode = '42501';
  end if;
  return query
    select s.id, s.name, s.renews_at, p.price
      from private.services s join public.products p on p.id = s.product_id
     where s.user_id = auth.uid() and s.state = 'active' and s.renews_at is not null
       and p.renew_interval is not null and p.price > 0
     order by s.renews_at, s.created_at
     limit 1;
end
$$;
revoke all on function public.get_next_payment() from public, anon;
grant execute on function public.get_next_payment() to authenticated;
