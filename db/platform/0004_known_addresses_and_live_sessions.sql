-- Addresses a user has fully signed in from (with the second factor when they have one): a
-- right password or code from one of them is let through even while strangers' failures have
-- throttled the account (OWASP's "trusted device" exception to lock-out).
create table auth.known_addresses (
  user_id uuid not null references auth.users (id) on delete cascade,
  -- text, as auth.sessions.ip: the address may come from X-Forwarded-For.
  ip text not null,
  last_seen_at timestamptz not null default now(),
  primary key (user_id, ip)
);
create index known_addresses_last_seen_at_idx on auth.known_addresses (last_seen_at);
alter table auth.known_addresses enable row level security;

-- Today's sessions were signed in from their addresses; an aal1 session of a user with a verified
-- factor only proves the password, so it does not make its address known.
insert into auth.known_addresses (user_id, ip, last_seen_at)
select s.user_id, s.ip, max(coalesce(s.refreshed_at, s.created_at))
  from auth.sessions s
 where s.ip is not null
   and (s.aal = 'aal2' or not exists (select 1 from auth.mfa_factors f where f.user_id = s.user_id and f.status = 'verified'))
 group by s.user_id, s.ip;

-- Revoked refresh tokens are pruned by age (src/server/jobs/tasks/prune-auth.ts).
create index refresh_tokens_revoked_updated_at_idx on auth.refresh_tokens (updated_at) where revoked;

-- Run with every API request's claims (src/server/db/with-claims.ts): a token whose session has
-- ended (sign-out, password change, account deletion, a row deleted in SQL) is refused at once,
-- in the request's own transaction. It reads only the caller's own claims, so it tells nothing
-- about anyone else's sessions. PT401 is answered 401 (PostgREST's PTxyz convention).
create function auth.require_live_session() returns void
language plpgsql stable security definer
set search_path = ''
as $$
declare
  sid text := nullif(current_setting('request.jwt.claims', true), '')::jsonb ->> 'session_id';
begin
  if sid is null or sid = '' or sid = '00000000-0000-0000-0000-000000000000' then
    return;
  end if;
  if sid !~* '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$'
     or not exists (select 1 from auth.sessions s where s.id = sid::uuid and coalesce(s.not_after > now(), true)) then
    raise exception using errcode = 'PT401', message = 'Session from session_id claim in JWT does not exist', hint = 'session_not_found';
  end if;
end;
$$;
revoke all on function auth.require_live_session() from public;
grant execute on function auth.require_live_session() to anon, authenticated, service_role;
