-- Issue 19: every admin action is appended to an audit log that nobody, an admin included, can
-- change: who did what to whom, the value before and after, from which address and user agent.

create table private.admin_audit_log (
  id bigint generated always as identity primary key,
  created_at timestamptz not null default now(),
  -- The admin's account; null for the operator's CLI and the server itself.
  actor_id uuid,
  -- The admin's e-mail at the time, or "cli:<os user>" / "server": kept when the account goes.
  actor text not null check (char_length(actor) between 1 and 320),
  action text not null check (action ~ '^[a-z_.]{1,64}$'),
  target_type text not null check (target_type ~ '^[a-z_]{1,32}$'),
  target_id text check (char_length(target_id) <= 200),
  target_label text check (char_length(target_label) <= 320),
  before jsonb,
  after jsonb,
  address text check (char_length(address) <= 100),
  user_agent text check (char_length(user_agent) <= 500)
);
alter table private.admin_audit_log enable row level security;
revoke all on private.admin_audit_log from public, anon, authenticated, service_role;
create index admin_audit_log_created_at on private.admin_audit_log (created_at desc, id desc);
create index admin_audit_log_target on private.admin_audit_log (target_id, created_at desc);

-- Append-only for every role, the table's owner included: rows are never changed or removed.
create function private.refuse_audit_change() returns trigger
language plpgsql set search_path = ''
as $$
begin
  raise exception 'The audit log is append-only' using errcode = '42501';
end
$$;
revoke all on function private.refuse_audit_change() from public, anon, authenticated, service_role;
create trigger admin_audit_log_append_only before update or delete on private.admin_audit_log
  for each row execute function private.refuse_audit_change();
create trigger admin_audit_log_no_truncate before truncate on private.admin_audit_log
  for each statement execute function private.refuse_audit_change();

-- Appends one entry. The actor is the request's user when there is one (an admin through the API),
-- else p_actor (the CLI names the operating-system user); the address and user agent come from
-- the request's settings (with-claims.ts). For SECURITY DEFINER functions and the server only.
create function private.record_admin_action(
  p_action text, p_target_type text, p_target_id text, p_target_label text,
  p_before jsonb, p_after jsonb, p_actor text default null
) returns void
language plpgsql security definer set search_path = ''
as $$
declare
  uid uuid := auth.uid();
  headers text := nullif(current_setting('request.headers', true), '');
begin
  insert into private.admin_audit_log (actor_id, actor, action, target_type, target_id, target_label, before, after, address, user_agent)
  values (
    uid,
    coalesce((select u.email from auth.users u where u.id = uid), p_actor, 'server'),
    p_action, p_target_type, p_target_id, left(p_target_label, 320), p_before, p_after,
    left(nullif(current_setting('request.client_address', true), ''), 100),
    left(case when headers is null then null else headers::jsonb ->> 'user-agent' end, 500)
  );
end
$$;
revoke all on function private.record_admin_action(text, text, text, text, jsonb, jsonb, text) from public, anon, authenticated, service_role;

-- The admin area's "Audit log" tab: newest first, filtered by action, by actor or target (a
-- case-insensitive substring of the e-mail, label or id) and by time, in pages.
create function public.admin_audit_log(
  p_action text default null, p_actor text default null, p_target text default null,
  p_from timestamptz default null, p_to timestamptz default null,
  p_limit integer default 50, p_offset integer default 0
) returns table (
  id bigint, created_at timestamptz, actor_id uuid, actor text, action text, target_type text, target_id text,
  target_label text, before jsonb, after jsonb, address text, user_agent text, total_count bigint
)
language plpgsql stable security definer set search_path = ''
as $$
begin
  perform private.require_aal2_if_enrolled();
  if not private.is_admin(auth.uid()) then
    raise exception 'Only admins can read the audit log' using errcode = '42501';
  end if;
  if p_limit is null or p_limit < 1 or p_limit > 200 or p_offset is null or p_offset < 0 then
    raise exception 'p_limit must be 1 to 200 and p_offset at least 0';
  end if;
  if char_length(p_action) > 64 or char_length(p_actor) > 320 or char_length(p_target) > 320 then
    raise exception 'A filter is at most 320 characters';
  end if;
  return query
    select a.id, a.created_at, a.actor_id, a.actor, a.action, a.target_type, a.target_id, a.target_label,
           a.before, a.after, a.address, a.user_agent, count(*) over ()
      from private.admin_audit_log a
     where (p_action is null or a.action = p_action)
       and (p_actor is null or strpos(lower(a.actor), lower(p_actor)) > 0)
       and (p_target is null or strpos(lower(coalesce(a.target_label, '') || ' ' || coalesce(a.target_id, '')), lower(p_target)) > 0)
       and (p_from is null or a.created_at >= p_from)
       and (p_to is null or a.created_at < p_to)
     order by a.created_at desc, a.id desc
     limit p_limit offset p_offset;
end
$$;
revoke all on function public.admin_audit_log(text, text, text, timestamptz, timestamptz, integer, integer) from public, anon;
grant execute on function public.admin_audit_log(text, text, text, timestamptz, timestamptz, integer, integer) to authenticated;

-- ---------------------------------------------------------------- audited admin actions

-- As in 0016, with the credit in the audit log.
create or replace function public.admin_add_credit(p_user_id uuid, p_amount numeric, p_note text, p_idempotency_key text default null)
returns numeric
language plpgsql security definer set search_path = ''
as $$
declare
  old_balance numeric;
  new_balance numeric;
begin
  perform private.require_aal2_if_enrolled();
  if not private.is_admin(auth.uid()) then
    raise exception 'Only admins can add credit' using errcode = '42501';
  end if;
  if p_amount is null or p_amount <= 0 or p_amount <> round(p_amount, 2) or p_amount >= 10000000000 then
    raise exception 'The amount must be a positive number of dollars with at most two decimals';
  end if;
  if coalesce(trim(p_note), '') = '' or char_length(p_note) > 500 then
    raise exception 'A note of 1 to 500 characters is required';
  end if;
  if p_idempotency_key is not null and (p_idempotency_key = '' or char_length(p_idempotency_key) > 200) then
    raise exception 'p_idempotency_key must be 1 to 200 characters';
  end if;
  select balance into old_balance from public.user_credits where user_id = p_user_id for update;
  if not found or not private.is_live_user(p_user_id) then
    raise exception 'No such user';
  end if;
  -- The key names the admin, so two admins' retries never merge into one credit.
  perform private.post_transaction(p_user_id, p_amount, 'admin_credit', trim(p_note), null,
    'admin:' || auth.uid()::text || ':' || coalesce(p_idempotency_key, gen_random_uuid()::text));
  select balance into new_balance from public.user_credits where user_id = p_user_id;
  -- A retried call with the same key credits nothing and so records nothing. Amounts as text, as
  -- numeric(12,2) comes to the server.
  if new_balance <> old_balance then
    perform private.record_admin_action('credit.add', 'user', p_user_id::text,
      (select u.email from auth.users u where u.id = p_user_id),
      jsonb_build_object('balance', old_balance::text),
      jsonb_build_object('balance', new_balance::text, 'amount', to_char(p_amount, 'FM9999999999990.00'), 'note', trim(p_note)));
  end if;
  return new_balance;
end
$$;

-- As in 0016; an admin's retry of someone else's installation is audited.
create or replace function public.retry_service_installation(p_service_id uuid) returns jsonb
language plpgsql security definer set search_path = ''
as $$
declare
  uid uuid := auth.uid();
  svc private.services;
  by_admin boolean;
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
  perform 1 from public.user_credits where user_id = svc.user_id for update;
  select * into svc from private.services where id = p_service_id for update;
  if svc.state <> 'failed' then
    raise exception 'Only a service whose installation failed can be retried' using errcode = 'PT409';
  end if;
  update private.services set state = 'installing' where id = svc.id;
  perform private.record_service_event(svc.id, 'retry_requested',
    jsonb_build_object('by', case when svc.user_id = uid then 'owner' else 'admin' end));
  if svc.user_id <> uid then
    perform private.record_admin_action('service.retry_install', 'service', svc.id::text, svc.name,
      jsonb_build_object('state', 'failed', 'error', svc.provisioning_error), jsonb_build_object('state', 'installing'));
  end if;
  perform nodeharbor.enqueue_job('install-service', jsonb_build_object('serviceId', svc.id));
  return private.service_json(svc.id);
end
$$;
