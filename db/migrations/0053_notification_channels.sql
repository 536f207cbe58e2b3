-- Issue 37, items 1 and 2 (docs/decisions/044): notification channels (Discord, Telegram, signed
-- webhooks) beside e-mail, the customer's choices per event and per service, the deliveries that
-- go out through the job queue, their log, and a low-balance threshold. The words raised are
-- src/shared/notifications.ts's notificationMessages, word for word.
--
-- The channels' targets (a Discord URL holds Discord's token; a webhook's secret signs its
-- deliveries; a Telegram chat id) are stored encrypted as services' API keys are (0013, 0017):
-- one JSON document per channel, the ChannelTarget of src/server/notify/channel-sender.ts. The
-- owner reads only a hint. Everything the owner reads or changes passes the second factor they
-- enrolled (private.meets_required_aal, 0016), as the other settings do.

-- ---------------------------------------------------------------- the tables

create table private.notification_channels (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references auth.users (id) on delete cascade,
  kind text not null check (kind in ('discord', 'telegram', 'webhook')),
  name text not null check (char_length(name) between 1 and 60),
  -- pending: a Telegram channel whose chat is not linked yet.
  state text not null check (state in ('pending', 'active', 'disabled')),
  -- The ChannelTarget as JSON, encrypted; null for a Telegram channel not linked yet.
  target_encrypted bytea,
  target_hint text not null,
  -- The one-time link code (Telegram), single use: cleared when a chat is linked.
  telegram_code text unique,
  telegram_code_expires_at timestamptz,
  -- Deliveries that failed for good one after another; at 3 (FAILURES_BEFORE_DISABLED) it is disabled.
  failures integer not null default 0,
  disabled_reason text,
  created_at timestamptz not null default now(),
  check (state = 'pending' or target_encrypted is not null)
);
create index notification_channels_user_idx on private.notification_channels (user_id, created_at);
alter table private.notification_channels enable row level security;
revoke all on private.notification_channels from public, anon, authenticated, service_role;

-- Only the choices that differ from the default (every event on, everywhere). channel: 'email' or
-- a channel's id as text, so that one column names both.
create table private.notification_preferences (
  user_id uuid not null references auth.users (id) on delete cascade,
  channel text not null,
  event text not null,
  enabled boolean not null,
  primary key (user_id, channel, event)
);
alter table private.notification_preferences enable row level security;
revoke all on private.notification_preferences from public, anon, authenticated, service_role;

-- A service's channels turned off; every channel off (e-mail included) mutes the service.
create table private.service_notification_settings (
  service_id uuid not null references private.services (id) on delete cascade,
  user_id uuid not null references auth.users (id) on delete cascade,
  channel text not null,
  enabled boolean not null,
  primary key (service_id, channel)
);
create index service_notification_settings_user_idx on private.service_notification_settings (user_id);
alter table private.service_notification_settings enable row level security;
revoke all on private.service_notification_settings from public, anon, authenticated, service_role;

-- One notification for one channel. id is the Standard Webhooks webhook-id (msg_…), the same on
-- every attempt; key (the event site's key and the channel) makes a retried sweep notify once.
create table private.notification_deliveries (
  id text primary key,
  key text not null unique,
  channel_id uuid not null references private.notification_channels (id) on delete cascade,
  user_id uuid not null references auth.users (id) on delete cascade,
  event text not null,
  -- title, text, url, data: the OutboundMessage but for its id and time.
  message jsonb not null,
  occurred_at timestamptz not null default now(),
  -- queued: its job is on the way; sent; failed: for good.
  state text not null default 'queued' check (state in ('queued', 'sent', 'failed')),
  -- Attempts begun: the delivery, not its job, counts them (a rate-limited wait spends none of the job's).
  attempts integer not null default 0,
  finished_at timestamptz
);
create index notification_deliveries_channel_idx on private.notification_deliveries (channel_id);
create index notification_deliveries_user_idx on private.notification_deliveries (user_id);
alter table private.notification_deliveries enable row level security;
revoke all on private.notification_deliveries from public, anon, authenticated, service_role;

create table private.notification_attempts (
  id bigserial primary key,
  channel_id uuid not null references private.notification_channels (id) on delete cascade,
  delivery_id text references private.notification_deliveries (id) on delete set null,
  attempted_at timestamptz not null default now(),
  event text not null,
  ok boolean not null,
  status_code integer,
  error text check (char_length(error) <= 500)
);
create index notification_attempts_channel_idx on private.notification_attempts (channel_id, id desc);
create index notification_attempts_delivery_idx on private.notification_attempts (delivery_id);
alter table private.notification_attempts enable row level security;
revoke all on private.notification_attempts from public, anon, authenticated, service_role;

-- The log keeps the last 50 attempts of each channel (DELIVERY_LOG_SIZE), whoever writes one.
create function private.prune_notification_attempts() returns trigger
language plpgsql set search_path = ''
as $$
begin
  delete from private.notification_attempts a
   where a.channel_id = new.channel_id
     and a.id < (select min(k.id) from (select b.id from private.notification_attempts b
                                          where b.channel_id = new.channel_id
                                          order by b.id desc limit 50) k);
  return null;
end
$$;
revoke all on function private.prune_notification_attempts() from public, anon, authenticated, service_role;
create trigger notification_attempts_prune after insert on private.notification_attempts
  for each row execute function private.prune_notification_attempts();

-- A key rotation (npm run cli keys:reencrypt) ends with every channel's target under the new key too.
create function private.reencrypt_notification_targets() returns bigint
language sql volatile set search_path = ''
as $$
  with done as (
    update private.notification_channels
       set target_encrypted = private.encrypt_api_key(private.decrypt_with_either_key(target_encrypted))
     where target_encrypted is not null
    returning 1
  )
  select count(*) from done
$$;
revoke all on function private.reencrypt_notification_targets() from public, anon, authenticated, service_role;

-- ---------------------------------------------------------------- low balance

alter table public.profiles
  -- USD; null: no low-balance notice. Set through public.set_low_balance_threshold only.
  add column low_balance_threshold numeric(12, 2) check (low_balance_threshold between 0 and 10000);

-- Whether the balance is below the threshold now, and how many times it crossed it: one notice a
-- crossing, the next only after the balance went back up to the threshold.
create table private.low_balance_alerts (
  user_id uuid primary key references auth.users (id) on delete cascade,
  below boolean not null default false,
  crossings integer not null default 0
);
alter table private.low_balance_alerts enable row level security;
revoke all on private.low_balance_alerts from public, anon, authenticated, service_role;

-- Every charge, in SQL or from the server, changes public.user_credits: watching the row catches
-- them all. The notice itself is a job (notify-low-balance) that runs the server's fan-out.
create function private.watch_low_balance() returns trigger
language plpgsql security definer set search_path = ''
as $$
declare
  threshold numeric;
  was_below boolean;
  n integer;
begin
  select p.low_balance_threshold into threshold from public.profiles p where p.id = new.user_id;
  if threshold is null then
    return null;
  end if;
  select a.below into was_below from private.low_balance_alerts a where a.user_id = new.user_id for update;
  if new.balance < threshold and not coalesce(was_below, false) then
    insert into private.low_balance_alerts as a (user_id, below, crossings) values (new.user_id, true, 1)
    on conflict (user_id) do update set below = true, crossings = a.crossings + 1
    returning crossings into n;
    perform nodeharbor.enqueue_job('notify-low-balance',
      jsonb_build_object('userId', new.user_id, 'crossing', n, 'balance', new.balance, 'threshold', threshold),
      'notify-low-balance:' || new.user_id || ':' || n);
  elsif new.balance >= threshold and coalesce(was_below, false) then
    update private.low_balance_alerts set below = false where user_id = new.user_id;
  end if;
  return null;
end
$$;
revoke all on function private.watch_low_balance() from public, anon, authenticated, service_role;
create trigger user_credits_watch_low_balance after insert or update of balance on public.user_credits
  for each row execute function private.watch_low_balance();

-- ---------------------------------------------------------------- checks shared by the functions

-- The caller, signed in and live; each function first checks the second factor itself.
create function private.notification_caller() returns uuid
language plpgsql stable security definer set search_path = ''
as $$
declare
  uid uuid := auth.uid();
begin
  if uid is null or not private.is_live_user(uid) then
    raise exception 'You must be logged in' using errcode = '42501';
  end if;
  return uid;
end
$$;
revoke all on function private.notification_caller() from public, anon, authenticated, service_role;

-- 'email', or the id of one of the caller's channels as text; anything else is "not found", as
-- another user's channel is.
create function private.own_channel_ref(p_uid uuid, p_channel text) returns text
language plpgsql stable security definer set search_path = ''
as $$
begin
  if p_channel = 'email' then
    return 'email';
  end if;
  if p_channel ~ '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$'
     and exists (select 1 from private.notification_channels c where c.id = p_channel::uuid and c.user_id = p_uid) then
    return lower(p_channel);
  end if;
  raise exception 'Channel not found' using errcode = 'PT404';
end
$$;
revoke all on function private.own_channel_ref(uuid, text) from public, anon, authenticated, service_role;

-- 10 characters of a 32-letter alphabet (no 0/O, 1/I): 50 random bits, easy to type on a phone.
create function private.new_link_code() returns text
language sql volatile set search_path = ''
as $$
  select string_agg(substr('ABCDEFGHJKLMNPQRSTUVWXYZ23456789', get_byte(b, i) % 32 + 1, 1), '' order by i)
    from (select extensions.gen_random_bytes(10) as b) r, generate_series(0, 9) i
$$;
revoke all on function private.new_link_code() from public, anon, authenticated, service_role;

-- ---------------------------------------------------------------- channels

-- Called by the notification-channel function (src/server/functions/notification-channel.ts), which
-- checked the URL, made the secret and the hint, as the caller. Returns the id and, for Telegram, its code.
create function private.create_notification_channel(p_kind text, p_name text, p_target text, p_hint text)
returns table (id uuid, code text)
language plpgsql security definer set search_path = ''
as $$
declare
  uid uuid;
  new_id uuid;
  new_code text;
begin
  perform private.require_aal2_if_enrolled();
  uid := private.notification_caller();
  if p_kind is null or p_kind not in ('discord', 'telegram', 'webhook') then
    raise exception 'The channel must be Discord, Telegram or a webhook' using errcode = '22023';
  end if;
  if p_name is null or btrim(p_name) = '' then
    raise exception 'Give the channel a name' using errcode = '22023';
  end if;
  if char_length(btrim(p_name)) > 60 then
    raise exception 'The name can be at most 60 characters' using errcode = '22023';
  end if;
  -- Only the API's schema is exposed, but the target must be of the channel's kind whoever calls.
  if (p_kind = 'telegram') <> (p_target is null) or (p_target::jsonb ->> 'kind') is distinct from nullif(p_kind, 'telegram') then
    raise exception 'p_target is required for Discord and webhooks only, and of the channel''s kind' using errcode = '22023';
  end if;
  -- One addition at a time per user, so that the limits below count exactly.
  perform pg_advisory_xact_lock(hashtextextended('notification-channels:' || uid, 0));
  if (select count(*) from private.notification_channels c where c.user_id = uid) >= 10 then
    raise exception 'You can add at most 10 channels' using errcode = '22023';
  end if;
  if p_kind = 'webhook' and (select count(*) from private.notification_channels c where c.user_id = uid and c.kind = 'webhook') >= 5 then
    raise exception 'You can add at most 5 webhooks' using errcode = '22023';
  end if;
  if p_kind = 'telegram' then
    new_code := private.new_link_code();
  end if;
  insert into private.notification_channels (user_id, kind, name, state, target_encrypted, target_hint, telegram_code, telegram_code_expires_at)
  values (uid, p_kind, btrim(p_name), case when p_kind = 'telegram' then 'pending' else 'active' end,
          case when p_target is not null then private.encrypt_api_key(p_target) end,
          coalesce(p_hint, 'Telegram chat'), new_code,
          case when new_code is not null then now() + interval '15 minutes' end)
  returning notification_channels.id into new_id;
  return query select new_id, new_code;
end
$$;
revoke all on function private.create_notification_channel(text, text, text, text) from public, anon, service_role;
grant execute on function private.create_notification_channel(text, text, text, text) to authenticated;

create function public.remove_notification_channel(p_channel_id uuid) returns void
language plpgsql security definer set search_path = ''
as $$
declare
  uid uuid;
begin
  perform private.require_aal2_if_enrolled();
  uid := private.notification_caller();
  delete from private.notification_channels c where c.id = p_channel_id and c.user_id = uid;
  if not found then
    raise exception 'Channel not found' using errcode = 'PT404';
  end if;
  delete from private.notification_preferences p where p.user_id = uid and p.channel = p_channel_id::text;
  delete from private.service_notification_settings s where s.user_id = uid and s.channel = p_channel_id::text;
end
$$;
revoke all on function public.remove_notification_channel(uuid) from public, anon, service_role;
grant execute on function public.remove_notification_channel(uuid) to authenticated;

-- A disabled channel back to active, its count of failures reset. A pending one stays pending.
create function public.enable_notification_channel(p_channel_id uuid) returns void
language plpgsql security definer set search_path = ''
as $$
declare
  uid uuid;
begin
  perform private.require_aal2_if_enrolled();
  uid := private.notification_caller();
  update private.notification_channels c
     set state = case when c.state = 'disabled' then 'active' else c.state end, failures = 0, disabled_reason = null
   where c.id = p_channel_id and c.user_id = uid;
  if not found then
    raise exception 'Channel not found' using errcode = 'PT404';
  end if;
end
$$;
revoke all on function public.enable_notification_channel(uuid) from public, anon, service_role;
grant execute on function public.enable_notification_channel(uuid) to authenticated;

-- A new one-time code for a Telegram channel (the last one expired, or the chat is to change). The
-- chat it is linked to, if any, keeps its notifications until a new chat sends the code.
create function public.new_telegram_code(p_channel_id uuid) returns text
language plpgsql security definer set search_path = ''
as $$
declare
  uid uuid;
  new_code text;
begin
  perform private.require_aal2_if_enrolled();
  uid := private.notification_caller();
  new_code := private.new_link_code();
  update private.notification_channels c
     set telegram_code = new_code, telegram_code_expires_at = now() + interval '15 minutes'
   where c.id = p_channel_id and c.user_id = uid and c.kind = 'telegram';
  if not found then
    raise exception 'Channel not found' using errcode = 'PT404';
  end if;
  return new_code;
end
$$;
revoke all on function public.new_telegram_code(uuid) from public, anon, service_role;
grant execute on function public.new_telegram_code(uuid) to authenticated;

-- The worker's (poll-telegram): the pending or linked channel whose unexpired code this is gets the
-- chat, and the code is spent. Null for a wrong or expired code: nothing changes.
create function private.link_telegram_chat(p_code text, p_chat_id text, p_title text) returns uuid
language plpgsql security definer set search_path = ''
as $$
declare
  linked uuid;
begin
  update private.notification_channels c
     set state = 'active', failures = 0, disabled_reason = null,
         target_encrypted = private.encrypt_api_key(jsonb_build_object('kind', 'telegram', 'chatId', p_chat_id)::text),
         target_hint = 'Telegram chat' || coalesce(' “' || left(nullif(btrim(p_title), ''), 60) || '”', ''),
         telegram_code = null, telegram_code_expires_at = null
   where c.telegram_code = upper(p_code) and c.telegram_code_expires_at > now() and c.kind = 'telegram'
  returning c.id into linked;
  return linked;
end
$$;
revoke all on function private.link_telegram_chat(text, text, text) from public, anon, authenticated, service_role;

-- Where the bot's getUpdates goes on (the next update_id), kept across restarts, and a lease so
-- that two polls (a slow one and the next period's) never handle one batch twice.
create table private.telegram_poll (
  id boolean primary key default true check (id),
  next_offset bigint,
  leased_until timestamptz
);
insert into private.telegram_poll default values;
alter table private.telegram_poll enable row level security;
revoke all on private.telegram_poll from public, anon, authenticated, service_role;

-- ---------------------------------------------------------------- preferences

create function private.require_notification_event(p_event text) returns void
language plpgsql immutable set search_path = ''
as $$
begin
  if p_event is null or p_event not in ('node_down', 'node_up', 'install_failed', 'suspension_warning',
                                        'termination_warning', 'low_balance', 'payment_received', 'security_notice') then
    raise exception 'Unknown notification type' using errcode = '22023';
  end if;
end
$$;
revoke all on function private.require_notification_event(text) from public, anon, authenticated, service_role;

create function public.set_notification_preference(p_channel text, p_event text, p_enabled boolean) returns void
language plpgsql security definer set search_path = ''
as $$
declare
  uid uuid;
  ref text;
begin
  perform private.require_aal2_if_enrolled();
  uid := private.notification_caller();
  ref := private.own_channel_ref(uid, p_channel);
  perform private.require_notification_event(p_event);
  if ref = 'email' and p_event = 'security_notice' and p_enabled is not true then
    raise exception 'Security notices always go by e-mail' using errcode = '22023';
  end if;
  -- Only what differs from the default (on) is kept.
  if coalesce(p_enabled, true) then
    delete from private.notification_preferences p where p.user_id = uid and p.channel = ref and p.event = p_event;
  else
    insert into private.notification_preferences (user_id, channel, event, enabled) values (uid, ref, p_event, false)
    on conflict (user_id, channel, event) do update set enabled = false;
  end if;
end
$$;
revoke all on function public.set_notification_preference(text, text, boolean) from public, anon, service_role;
grant execute on function public.set_notification_preference(text, text, boolean) to authenticated;

create function public.set_service_notification(p_service_id uuid, p_channel text, p_enabled boolean) returns void
language plpgsql security definer set search_path = ''
as $$
declare
  uid uuid;
  ref text;
begin
  perform private.require_aal2_if_enrolled();
  uid := private.notification_caller();
  ref := private.own_channel_ref(uid, p_channel);
  -- Another user's service is as absent as one that never was.
  if not exists (select 1 from private.services s where s.id = p_service_id and s.user_id = uid and s.state <> 'deleted') then
    raise exception 'Service not found' using errcode = 'PT404';
  end if;
  if coalesce(p_enabled, true) then
    delete from private.service_notification_settings s where s.service_id = p_service_id and s.channel = ref;
  else
    insert into private.service_notification_settings (service_id, user_id, channel, enabled) values (p_service_id, uid, ref, false)
    on conflict (service_id, channel) do update set enabled = false;
  end if;
end
$$;
revoke all on function public.set_service_notification(uuid, text, boolean) from public, anon, service_role;
grant execute on function public.set_service_notification(uuid, text, boolean) to authenticated;

create function public.set_low_balance_threshold(p_amount numeric) returns void
language plpgsql security definer set search_path = ''
as $$
declare
  uid uuid;
  balance numeric;
begin
  perform private.require_aal2_if_enrolled();
  uid := private.notification_caller();
  if p_amount is not null and (p_amount < 0 or p_amount > 10000 or p_amount <> round(p_amount, 2)) then
    raise exception 'Enter an amount between $0 and $10,000, or leave it empty' using errcode = '22023';
  end if;
  update public.profiles set low_balance_threshold = p_amount, updated_at = now() where id = uid;
  -- A threshold set above today's balance is not a crossing: the customer sees the balance as they
  -- set it. The next notice comes after the balance went back up and down again.
  select c.balance into balance from public.user_credits c where c.user_id = uid;
  insert into private.low_balance_alerts as a (user_id, below)
  values (uid, p_amount is not null and coalesce(balance, 0) < p_amount)
  on conflict (user_id) do update set below = excluded.below;
end
$$;
revoke all on function public.set_low_balance_threshold(numeric) from public, anon, service_role;
grant execute on function public.set_low_balance_threshold(numeric) to authenticated;

-- ---------------------------------------------------------------- what the owner reads

-- Guarded as the other owner views are (0033, 0047): the caller's own rows, past the second factor;
-- the public views read them as the caller.
create view private.own_notification_channels with (security_barrier) as
select c.id, c.kind, c.name, c.state, c.target_hint,
       case when c.telegram_code_expires_at > now() then c.telegram_code end as telegram_code,
       case when c.telegram_code_expires_at > now() then c.telegram_code_expires_at end as telegram_code_expires_at,
       c.failures, c.disabled_reason, c.created_at
  from private.notification_channels c
 where c.user_id = auth.uid() and (select private.meets_required_aal());
revoke all on private.own_notification_channels from public, anon, authenticated, service_role;
grant select on private.own_notification_channels to authenticated;
create view public.my_notification_channels with (security_invoker = true) as select * from private.own_notification_channels;
revoke all on public.my_notification_channels from public, anon, authenticated, service_role;
grant select on public.my_notification_channels to authenticated;

create view private.own_notification_preferences with (security_barrier) as
select p.channel, p.event, p.enabled
  from private.notification_preferences p
 where p.user_id = auth.uid() and (select private.meets_required_aal());
revoke all on private.own_notification_preferences from public, anon, authenticated, service_role;
grant select on private.own_notification_preferences to authenticated;
create view public.my_notification_preferences with (security_invoker = true) as select * from private.own_notification_preferences;
revoke all on public.my_notification_preferences from public, anon, authenticated, service_role;
grant select on public.my_notification_preferences to authenticated;

create view private.own_service_notification_settings with (security_barrier) as
select s.service_id, s.channel, s.enabled
  from private.service_notification_settings s
 where s.user_id = auth.uid() and (select private.meets_required_aal());
revoke all on private.own_service_notification_settings from public, anon, authenticated, service_role;
grant select on private.own_service_notification_settings to authenticated;
create view public.my_service_notification_settings with (security_invoker = true) as select * from private.own_service_notification_settings;
revoke all on public.my_service_notification_settings from public, anon, authenticated, service_role;
grant select on public.my_service_notification_settings to authenticated;

create view private.own_notification_attempts with (security_barrier) as
select a.id, a.channel_id, a.attempted_at, a.event, a.ok, a.status_code, a.error
  from private.notification_attempts a
  join private.notification_channels c on c.id = a.channel_id
 where c.user_id = auth.uid() and (select private.meets_required_aal());
revoke all on private.own_notification_attempts from public, anon, authenticated, service_role;
grant select on private.own_notification_attempts to authenticated;
create view public.my_notification_attempts with (security_invoker = true) as select * from private.own_notification_attempts;
revoke all on public.my_notification_attempts from public, anon, authenticated, service_role;
grant select on public.my_notification_attempts to authenticated;
