-- Issue 37, item 4 (docs/decisions/046): customers' API tokens. A token is `nhp_` + 30 random base62
-- characters + their CRC32 in 6 base62 characters; only its SHA-256 (hex) is kept, with its first 12
-- characters to tell it apart in a list. The server makes the secret and checks it
-- (src/server/api/token-auth.ts); here are the rows, the owner's list without the hash, creation
-- (called by /functions/v1/api-token under the caller's claims), revocation, and the refusals that
-- hold whatever path a request takes: a caller holding an API token (amr method 'api_token') never
-- changes the password, the second factors, the tokens or the e-mail address.
-- The words are src/shared/api-tokens.ts's apiTokenMessages, word for word.

-- ---------------------------------------------------------------- the rows

create table private.api_tokens (
  id uuid primary key default gen_random_uuid(),
  -- Deleting the account deletes its tokens: here for a row removed, below for an account closed.
  user_id uuid not null references auth.users (id) on delete cascade,
  name text not null check (char_length(name) between 1 and 60 and name = btrim(name)),
  prefix text not null check (prefix ~ '^nhp_[0-9A-Za-z]{8}$'),
  token_hash text not null unique check (token_hash ~ '^[0-9a-f]{64}$'),
  scopes text[] not null check (cardinality(scopes) > 0 and scopes <@ array['services:read', 'services:write', 'billing:read']),
  -- Null: it never expires.
  expires_at timestamptz,
  -- Empty: any address may use it.
  allowed_ips cidr[] not null default '{}' check (cardinality(allowed_ips) <= 20),
  created_at timestamptz not null default now(),
  -- Written at most once a minute a token, by the server that checked it.
  last_used_at timestamptz,
  last_used_ip inet,
  revoked_at timestamptz
);
create index api_tokens_user_idx on private.api_tokens (user_id, created_at desc);
alter table private.api_tokens enable row level security;
revoke all on private.api_tokens from public, anon, authenticated, service_role;

-- ---------------------------------------------------------------- what a token may never do

-- Whether the request's claims are an API token's (src/server/api/token-auth.ts asTokenOwner).
create function private.is_api_token_caller() returns boolean
language sql stable set search_path = ''
as $$
  select coalesce(nullif(current_setting('request.jwt.claims', true), '')::jsonb -> 'amr' @> '[{"method": "api_token"}]'::jsonb, false)
$$;
revoke all on function private.is_api_token_caller() from public, anon, authenticated, service_role;

-- 42501: answered 403. A token acts as its owner only for its scopes; none of them reaches these.
create function private.refuse_api_token_caller() returns void
language plpgsql stable set search_path = ''
as $$
begin
  if private.is_api_token_caller() then
    raise exception 'An API token cannot change the password, second factors, API tokens or e-mail address' using errcode = '42501';
  end if;
end
$$;
revoke all on function private.refuse_api_token_caller() from public, anon, authenticated, service_role;

-- An admin's token is no admin: the API acts within its scopes on the owner's own things, and every
-- admin check (policies and functions alike) asks this. Others' admin rights are told as before.
create or replace function private.is_admin(p_user_id uuid) returns boolean
language sql stable security definer set search_path = ''
as $$
  select exists (select 1 from public.admin_users where user_id = p_user_id)
     and not (p_user_id is not distinct from auth.uid() and private.is_api_token_caller())
$$;

-- On the tables themselves, so that the rule holds for any function that writes them, today's
-- (GoTrue's routes, delete_own_account) and tomorrow's.
create function private.refuse_api_token_writes() returns trigger
language plpgsql set search_path = ''
as $$
begin
  perform private.refuse_api_token_caller();
  return coalesce(new, old);
end
$$;
revoke all on function private.refuse_api_token_writes() from public, anon, authenticated, service_role;

create trigger api_token_cannot_change_credentials before update of email, encrypted_password or delete on auth.users
  for each row execute function private.refuse_api_token_writes();
create trigger api_token_cannot_change_factors before insert or update or delete on auth.mfa_factors
  for each row execute function private.refuse_api_token_writes();
-- Not the server's own `last used` writes, which carry no claims.
create trigger api_token_cannot_change_tokens before insert or update or delete on private.api_tokens
  for each row execute function private.refuse_api_token_writes();

-- An account is closed in place (private.close_account): its tokens go with it.
create function private.forget_api_tokens_of_closed_account() returns trigger
language plpgsql security definer set search_path = ''
as $$
begin
  delete from private.api_tokens where user_id = new.id;
  return null;
end
$$;
revoke all on function private.forget_api_tokens_of_closed_account() from public, anon, authenticated, service_role;
create trigger api_tokens_close_with_account after update of deleted_at on auth.users
  for each row when (old.deleted_at is null and new.deleted_at is not null)
  execute function private.forget_api_tokens_of_closed_account();

-- ---------------------------------------------------------------- creating and revoking

-- Called by /functions/v1/api-token (src/server/functions/api-token.ts) under the caller's claims,
-- with the hash and prefix of the secret it made; in the private schema, which PostgREST does not
-- expose, so that every token is one the server made. PT409 past MAX_API_TOKENS live tokens.
create function private.create_api_token(
  p_name text, p_scopes text[], p_expires_in_days integer, p_allowed_ips cidr[], p_prefix text, p_token_hash text
) returns uuid
language plpgsql security definer set search_path = ''
as $$
declare
  uid uuid := auth.uid();
  token_id uuid;
begin
  perform private.refuse_api_token_caller();
  perform private.require_aal2_if_enrolled();
  if uid is null or not private.is_live_user(uid) then
    raise exception 'You must be logged in' using errcode = '42501';
  end if;
  if p_name is null or btrim(p_name) = '' then
    raise exception 'Give the token a name' using errcode = '22023';
  elsif char_length(btrim(p_name)) > 60 then
    raise exception 'The name may be at most 60 characters' using errcode = '22023';
  elsif p_scopes is null or cardinality(p_scopes) = 0 then
    raise exception 'Choose at least one scope' using errcode = '22023';
  elsif not p_scopes <@ array['services:read', 'services:write', 'billing:read'] then
    raise exception 'Unknown scope' using errcode = '22023';
  elsif p_expires_in_days is not null and p_expires_in_days not in (7, 30, 90, 365) then
    raise exception 'Choose an expiry of 7, 30, 90 or 365 days, or none' using errcode = '22023';
  elsif cardinality(coalesce(p_allowed_ips, '{}')) > 20 then
    raise exception 'At most 20 addresses or ranges' using errcode = '22023';
  end if;
  -- Two creations by one user take turns, so that the count below holds.
  perform pg_advisory_xact_lock(hashtextextended('api_tokens:' || uid::text, 0));
  if (select count(*) from private.api_tokens
       where user_id = uid and revoked_at is null and (expires_at is null or expires_at > now())) >= 20 then
    raise exception 'You can have at most 20 API tokens: revoke one first' using errcode = 'PT409';
  end if;
  insert into private.api_tokens (user_id, name, prefix, token_hash, scopes, expires_at, allowed_ips)
  values (uid, btrim(p_name), p_prefix, p_token_hash,
          array(select distinct s from unnest(p_scopes) s order by s),
          case when p_expires_in_days is not null then now() + make_interval(days => p_expires_in_days) end,
          coalesce(p_allowed_ips, '{}'))
  returning id into token_id;
  return token_id;
end
$$;
revoke all on function private.create_api_token(text, text[], integer, cidr[], text, text) from public, anon, service_role;
grant execute on function private.create_api_token(text, text[], integer, cidr[], text, text) to authenticated;

-- Another user's token is as absent as one that never was, and so is one already revoked.
create function public.revoke_api_token(p_id uuid) returns void
language plpgsql security definer set search_path = ''
as $$
declare
  uid uuid := auth.uid();
begin
  perform private.require_aal2_if_enrolled();
  perform private.refuse_api_token_caller();
  if uid is null or not private.is_live_user(uid) then
    raise exception 'You must be logged in' using errcode = '42501';
  end if;
  update private.api_tokens set revoked_at = now() where id = p_id and user_id = uid and revoked_at is null;
  if not found then
    raise exception 'API token not found' using errcode = 'PT404';
  end if;
end
$$;
revoke all on function public.revoke_api_token(uuid) from public, anon, service_role;
grant execute on function public.revoke_api_token(uuid) to authenticated;

-- ---------------------------------------------------------------- what the owner reads

-- The caller's tokens not revoked, expired ones included (the list says so), without the hash. An
-- allow-list entry of one address reads as the address (10.0.0.1, not 10.0.0.1/32).
create view private.own_api_tokens with (security_barrier) as
select t.id, t.name, t.prefix, t.scopes, t.expires_at,
       array(select case when masklen(a) = case family(a) when 4 then 32 else 128 end then host(a) else a::text end
               from unnest(t.allowed_ips) with ordinality as e(a, n) order by n) as allowed_ips,
       t.created_at, t.last_used_at, host(t.last_used_ip) as last_used_ip
  from private.api_tokens t
 where t.user_id = auth.uid() and t.revoked_at is null and (select private.meets_required_aal());
revoke all on private.own_api_tokens from public, anon, authenticated, service_role;
grant select on private.own_api_tokens to authenticated;

create view public.api_tokens with (security_invoker = true) as select * from private.own_api_tokens;
revoke all on public.api_tokens from public, anon, authenticated, service_role;
grant select on public.api_tokens to authenticated;
