-- Issue 36, item 5: money that explains itself (docs/decisions/041-a-failed-install-is-free.md).
-- - A failed installation is free, visibly: the charge that paid for a node that never ran comes
--   back to the balance the moment it fails, as a ledger credit "Refund: installation of X failed",
--   once per charge. The period it bought goes with it, so nothing is left to renew, extend or reuse.
-- - A Retry of such a service buys the period again, and only when its owner confirms the price
--   (p_charge): an admin cannot spend a customer's credit, and an older client that does not ask is
--   refused instead of charging in silence. A retry of an installation that was not charged (a reused
--   purchased service, a free plan) stays free, for its owner or an admin, as before.
-- - A balance a refund took below zero tells its owner why (public.get_negative_balance): the ledger
--   row, its credit note and the admin's reason, which the refund dialog now says the customer reads.
-- The functions re-created below are their latest definitions (named at each), changed only where
-- they charge, refund or show what was refunded.

-- ---------------------------------------------------------------- money in words

-- As in 0003, and a balance a refund took below zero reads "-$8.00", as the dashboard and the mails
-- write it, not "$-8.00" ("You need $10.00 but only have -$8.00"; messages.insufficientCreditsDetail).
create or replace function private.money(p_amount numeric) returns text
language sql immutable set search_path = ''
as $$ select case when p_amount < 0 then '-' else '' end || '$' || to_char(abs(p_amount), 'FM999999999990.00') $$;

-- ---------------------------------------------------------------- the columns

alter table private.services
  -- The ledger charge that pays for the installation under way (or just failed); null when it was
  -- not charged: a reused purchased service, a free plan, or a charge already given back.
  add column install_charge_id uuid,
  -- The ledger credit that gave that charge back when the installation failed. While it is set the
  -- service holds no paid period, and a retry charges again.
  add column install_refund_id uuid;

-- The charge of a new service is written just before its row (create_service_securely posts it
-- under 'service-create:<id>', then inserts): the row finds it by that key. A trigger rather than a
-- copy of the creation function, whose checks are other work's and change often.
create function private.note_install_charge() returns trigger
language plpgsql set search_path = ''
as $$
begin
  if new.install_charge_id is null then
    select t.id into new.install_charge_id from public.credit_transactions t
     where t.user_id = new.user_id and t.idempotency_key = 'service-create:' || new.id::text and t.amount < 0;
  end if;
  return new;
end
$$;
revoke all on function private.note_install_charge() from public;
create trigger services_note_install_charge before insert on private.services
  for each row execute function private.note_install_charge();

-- A node that ran has spent its charge; a service that leaves installing and failed by any other
-- path (deleted, say) has nothing more to give back or to charge for.
create function private.settle_install_charge() returns trigger
language plpgsql set search_path = ''
as $$
begin
  if new.state not in ('installing', 'failed') then
    new.install_charge_id := null;
    new.install_refund_id := null;
  end if;
  return new;
end
$$;
revoke all on function private.settle_install_charge() from public;
create trigger services_settle_install_charge before update of state on private.services
  for each row when (old.state is distinct from new.state) execute function private.settle_install_charge();

-- ---------------------------------------------------------------- the refund

-- The charge that paid for a service's installation, given back: a credit in its owner's ledger,
-- keyed by the charge, so that no charge is ever given back twice, however often a failure is
-- reported. The period it bought goes too: renews_at becomes now and no unbilled time is added
-- later, so a deleted service is not offered for reuse, and the card shows no period. The caller
-- holds the owner's credit row. Answers the amount given back, or null when nothing was charged.
create function private.refund_install_charge(p_service_id uuid) returns numeric
language plpgsql security definer set search_path = ''
as $$
declare
  svc private.services;
  charge public.credit_transactions;
  key text;
  refund_id uuid;
begin
  select * into svc from private.services where id = p_service_id for update;
  if svc.install_charge_id is null then
    return null;
  end if;
  select * into charge from public.credit_transactions
   where id = svc.install_charge_id and user_id = svc.user_id and amount < 0;
  if charge.id is null then
    return null;
  end if;
  key := 'install-refund:' || charge.id::text;
  perform private.post_transaction(svc.user_id, -charge.amount, 'refund', format('Refund: installation of %s failed', svc.name), svc.id, key);
  select t.id into refund_id from public.credit_transactions t where t.user_id = svc.user_id and t.idempotency_key = key;
  update private.services
     set install_charge_id = null, install_refund_id = refund_id, renews_at = now(), unbilled_since = null
   where id = svc.id;
  return -charge.amount;
end
$$;
revoke all on function private.refund_install_charge(uuid) from public, anon, authenticated, service_role;

-- As in 0014, and now the owner's credit row is taken first (as every writer of money and services
-- takes it), and the installation's charge is given back in the same transaction as the failure.
-- The event says how much, for the service's history.
create or replace function private.fail_service_installation(p_service_id uuid, p_reason text) returns boolean
language plpgsql security definer set search_path = ''
as $$
declare
  reason text := left(coalesce(nullif(trim(p_reason), ''), 'The node did not start'), 1000);
  owner_id uuid;
  refunded numeric;
begin
  select user_id into owner_id from private.services where id = p_service_id;
  if owner_id is null then
    return null;
  end if;
  perform 1 from public.user_credits where user_id = owner_id for update;
  update private.services set state = 'failed', provisioning_error = reason
   where id = p_service_id and state = 'installing';
  if not found then
    return null;
  end if;
  refunded := private.refund_install_charge(p_service_id);
  perform private.record_service_event(p_service_id, 'install_failed',
    jsonb_strip_nulls(jsonb_build_object('reason', reason, 'refunded', refunded)));
  return true;
end
$$;

-- ---------------------------------------------------------------- the retry

-- As in 0048, with the charge of a refunded installation. p_charge is the price the caller was shown
-- and confirmed: a retry that charges runs only when it is the price now, for the owner alone, and
-- when the balance covers it; otherwise nothing changes. The charge's key names the refund it
-- follows, so a repeated request charges once. The new period counts from the node's first run, as
-- at creation. A retry that charges nothing ignores p_charge.
drop function public.retry_service_installation(uuid);
create function public.retry_service_installation(p_service_id uuid, p_charge numeric default null) returns jsonb
language plpgsql security definer set search_path = ''
as $$
declare
  uid uuid := auth.uid();
  svc private.services;
  by_admin boolean;
  product public.products;
  price numeric := 0;
  v_balance numeric;
  key text;
  charge_id uuid;
begin
  perform private.require_aal2_if_enrolled();
  if uid is null or not private.is_live_user(uid) then
    raise exception 'You must be logged in' using errcode = '42501';
  end if;
  by_admin := private.is_admin(uid);
  select * into svc from private.services where id = p_service_id and (user_id = uid or by_admin);
  if svc.id is null then
    raise exception 'Service not found' using errcode = 'PT404';
  end if;
  -- The owner's credit row first, as every writer of services does, then the service.
  select c.balance into v_balance from public.user_credits c where c.user_id = svc.user_id for update;
  select * into svc from private.services where id = p_service_id for update;
  if svc.state <> 'failed' then
    raise exception 'Only a service whose installation failed can be retried' using errcode = 'PT409';
  end if;
  if svc.install_refund_id is not null then
    select * into product from public.products where id = svc.product_id;
    price := coalesce(product.price, 0);
  end if;
  if price > 0 then
    if svc.user_id <> uid then
      raise exception 'Its owner was refunded for this installation, so only they can retry it: a retry charges them again.'
        using errcode = '42501';
    end if;
    if p_charge is distinct from price then
      raise exception 'Retrying charges %. Confirm the charge to retry.', private.money(price) using errcode = 'PT409';
    end if;
    if price > v_balance then
      raise exception 'Insufficient Credits'
        using detail = format('You need %s but only have %s', private.money(price), private.money(v_balance));
    end if;
    key := 'install-retry:' || svc.install_refund_id::text;
    perform private.post_transaction(uid, -price, 'service_charge', format('Installation retry for %s (%s)', svc.name, product.name), svc.id, key);
    select t.id into charge_id from public.credit_transactions t where t.user_id = uid and t.idempotency_key = key;
  end if;
  if svc.install_refund_id is not null then
    update private.services
       set state = 'installing', install_charge_id = charge_id, install_refund_id = null, unbilled_since = now(),
           renews_at = case when product.id is null then renews_at
                            when product.renew_interval is null then null
                            else now() + product.renew_interval::interval end
     where id = svc.id;
  else
    update private.services set state = 'installing' where id = svc.id;
  end if;
  perform private.record_service_event(svc.id, 'retry_requested',
    jsonb_strip_nulls(jsonb_build_object('by', case when svc.user_id = uid then 'owner' else 'admin' end, 'charged', nullif(price, 0))));
  if svc.user_id <> uid then
    perform private.record_admin_action('service.retry_install', 'service', svc.id::text, svc.name,
      jsonb_build_object('state', 'failed', 'error', svc.provisioning_error), jsonb_build_object('state', 'installing'));
  end if;
  perform nodeharbor.enqueue_job('install-service', jsonb_build_object('serviceId', svc.id));
  -- The owner's own answer carries their key; an admin's never does.
  return (case when svc.user_id = uid then private.service_json(svc.id) else private.service_json(svc.id) - 'api_key' end)
         || jsonb_build_object('charged', price);
end
$$;
revoke all on function public.retry_service_installation(uuid, numeric) from public, anon;
grant execute on function public.retry_service_installation(uuid, numeric) to authenticated;

-- ---------------------------------------------------------------- what the owner reads

-- As in 0046, with install_refund_id at the end.
create or replace view private.service_rows as
select s.id, s.user_id, s.name, s.description, s.api_key_encrypted, s.product_id, s.created_at, s.renews_at,
       s.state in ('expired', 'suspended') as expired,
       s.state not in ('installing', 'failed') as is_installed,
       s.state = 'deleting' as is_deleting,
       s.state = 'deleted' as is_deleted,
       s.state, s.provisioning_error, s.terminates_at, s.install_started_at, s.auto_renew, s.install_refund_id
  from private.services s;

-- As in 0046, with install_refund at the end: what came back to the balance when this installation
-- failed; null unless it failed and had been charged.
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
       (select n.online_since from private.node_status n where n.service_id = r.id) as online_since,
       (select mc.location from private.machines mc where mc.service_id = r.id) as location,
       r.auto_renew,
       (select t.amount from public.credit_transactions t where t.id = r.install_refund_id) as install_refund
  from private.service_rows r
 where r.user_id = auth.uid() and (select private.meets_required_aal());

-- The API's view lists the columns its select * found when it was made: the new one is added the same way.
create or replace view public.services with (security_invoker = true) as select * from private.own_services;

-- As in 0046, with install_refund: the answer of a failure's retry, and every other, says it.
create or replace function private.service_json(p_id uuid) returns jsonb
language sql stable security definer set search_path = ''
as $$
  select jsonb_build_object(
    'id', r.id, 'user_id', r.user_id, 'name', r.name, 'description', r.description,
    'api_key', private.decrypt_with_either_key(r.api_key_encrypted),
    'product_id', r.product_id, 'created_at', r.created_at, 'renews_at', r.renews_at,
    'expired', r.expired, 'is_installed', r.is_installed, 'is_deleting', r.is_deleting, 'is_deleted', r.is_deleted,
    'state', r.state, 'provisioning_error', r.provisioning_error, 'terminates_at', r.terminates_at,
    'install_queued', r.state = 'installing' and r.install_started_at is null,
    'auto_renew', r.auto_renew,
    'install_refund', (select t.amount from public.credit_transactions t where t.id = r.install_refund_id))
  from private.service_rows r where r.id = p_id
$$;

-- ---------------------------------------------------------------- services already under way

-- A service still installing or failed for the first time was charged at creation: its charge is
-- noted, so that a failure from now on gives it back. One whose node ran once, or that was a reused
-- purchased service, paid for a period it keeps (as before) and is left alone.
update private.services s
   set install_charge_id = t.id
  from public.credit_transactions t
 where s.state in ('installing', 'failed')
   and t.user_id = s.user_id and t.idempotency_key = 'service-create:' || s.id::text and t.amount < 0
   and not exists (select 1 from public.service_events e where e.service_id = s.id and e.event = 'installed')
   and coalesce((select e.detail ->> 'reused' from public.service_events e
                  where e.service_id = s.id and e.event = 'install_requested' order by e.id desc limit 1), 'false') <> 'true';

-- And one that has already failed gets its charge back now, as it would from here on.
do $$
declare
  svc record;
begin
  for svc in select id, user_id from private.services where state = 'failed' and install_charge_id is not null order by user_id, id loop
    perform 1 from public.user_credits where user_id = svc.user_id for update;
    perform private.refund_install_charge(svc.id);
  end loop;
end
$$;

-- ---------------------------------------------------------------- a balance below zero, explained

-- An admin's reason for a refund was written "for the audit log" until now: those stay the admins'
-- own. From here on the refund dialog says the customer reads it.
alter table public.credit_refunds add column reason_shown boolean not null default true;
update public.credit_refunds set reason_shown = false where reason is not null;

-- The caller's balance when it is below zero, and why: the last refund or reversal that took credit
-- back (its ledger row, its credit note, and the admin's reason when they wrote one for the customer).
-- No row when the balance is not negative. Only ever the caller's own.
create function public.get_negative_balance()
returns table (balance numeric, description text, amount numeric, created_at timestamptz, note text, credit_note text)
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
    select c.balance, t.description, -t.amount, t.created_at,
           case when r.reason_shown then r.reason end,
           (select d.number from public.billing_documents d where d.refund_id = r.id and d.kind = 'credit_note')
      from public.user_credits c
      left join lateral (
        select x.description, x.amount, x.created_at, x.idempotency_key from public.credit_transactions x
         where x.user_id = uid and x.type = 'refund' and x.amount < 0
         order by x.created_at desc, x.id desc limit 1) t on true
      left join public.credit_refunds r
        on r.id = substring(t.idempotency_key from '^refund:([0-9a-f-]{36})$')::uuid and r.user_id = uid
     where c.user_id = uid and c.balance < 0;
end
$$;
revoke all on function public.get_negative_balance() from public, anon;
grant execute on function public.get_negative_balance() to authenticated;

-- ---------------------------------------------------------------- what admins read

-- As in 0047, with install_refunded at the end: a failed installation whose charge went back to its
-- owner, which only the owner can retry. The fleet and the user page show no Retry for it.
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
       s.stopped_at,
       s.install_refund_id is not null as install_refunded
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

-- As in 0047, with install_refunded. Its columns change, so it is made again, with the same grants.
drop function public.admin_fleet(text, text, boolean, integer, integer);
create function public.admin_fleet(
  p_state text default null, p_sort text default 'last_seen', p_descending boolean default true,
  p_limit integer default 100, p_offset integer default 0
) returns table (
  service_id uuid, name text, user_id uuid, email text, product text, created_at timestamptz, state text, service_state text,
  host text, last_seen_at timestamptz, reason text, provisioning_error text, restarts_24h integer, monthly_margin numeric,
  stopped_at timestamptz, install_refunded boolean, total_count bigint
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
            f.reason, f.provisioning_error, f.restarts_24h, f.monthly_margin, f.stopped_at, f.install_refunded, count(*) over ()
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

-- As in 0044, with install_refunded on each service.
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
                      'monthly_margin', f.monthly_margin, 'install_refunded', f.install_refunded)
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
