-- What a Supabase project provides before any app migration runs: the API roles, the auth schema
-- with its users, identities, sessions and refresh tokens, and auth.uid()/role()/email()/jwt().
-- Applied only when this server hosts auth itself. Column names follow Supabase's own so that
-- app migrations (and users exported from a hosted project) work unchanged on both.

create schema if not exists extensions;
create extension if not exists pgcrypto with schema extensions;

-- Roles are shared by every database of a cluster, and test databases are created side by side,
-- so creating one that another database just created is not an error. A role that exists is
-- not created again: PostgreSQL checks the right to create one (BYPASSRLS needs a superuser)
-- before it notices the name is taken, and an owner that is not a superuser finds them made.
do $$
declare
  r record;
begin
  for r in select * from (values ('anon', 'nologin noinherit'), ('authenticated', 'nologin noinherit'),
                                 ('service_role', 'nologin noinherit bypassrls')) as v (name, options)
  loop
    if not exists (select 1 from pg_roles where rolname = r.name) then
      begin
        execute format('create role %I %s', r.name, r.options);
      exception when duplicate_object or unique_violation then null;
      end;
    end if;
  end loop;
  -- A server that connects as an ordinary user must still be able to switch to the API roles.
  if not (select rolsuper from pg_roles where rolname = current_user)
     and not (pg_has_role(current_user, 'anon', 'member') and pg_has_role(current_user, 'authenticated', 'member')
              and pg_has_role(current_user, 'service_role', 'member')) then
    execute format('grant anon, authenticated, service_role to %I', current_user);
  end if;
end
$$;

grant usage on schema public to anon, authenticated, service_role;
grant usage on schema extensions to anon, authenticated, service_role;
alter default privileges in schema public grant all on tables to anon, authenticated, service_role;
alter default privileges in schema public grant all on functions to anon, authenticated, service_role;
alter default privileges in schema public grant all on sequences to anon, authenticated, service_role;

create schema if not exists auth;
grant usage on schema auth to anon, authenticated, service_role;

create table auth.users (
  instance_id uuid,
  id uuid primary key default gen_random_uuid(),
  aud varchar(255) not null default 'authenticated',
  role varchar(255) not null default 'authenticated',
  email varchar(255),
  encrypted_password varchar(255),
  email_confirmed_at timestamptz,
  invited_at timestamptz,
  confirmation_sent_at timestamptz,
  recovery_token varchar(255),
  recovery_sent_at timestamptz,
  last_sign_in_at timestamptz,
  raw_app_meta_data jsonb not null default '{}'::jsonb,
  raw_user_meta_data jsonb not null default '{}'::jsonb,
  is_super_admin boolean,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  phone text,
  phone_confirmed_at timestamptz,
  banned_until timestamptz,
  deleted_at timestamptz,
  is_anonymous boolean not null default false,
  constraint users_email_lowercase check (email = lower(email))
);
create unique index users_email_key on auth.users (email);
create index users_recovery_token_idx on auth.users (recovery_token) where recovery_token is not null;

create table auth.identities (
  id uuid primary key default gen_random_uuid(),
  provider_id text not null,
  user_id uuid not null references auth.users (id) on delete cascade,
  identity_data jsonb not null,
  provider text not null,
  last_sign_in_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  email text generated always as (lower(identity_data ->> 'email')) stored,
  unique (provider_id, provider)
);
create index identities_user_id_idx on auth.identities (user_id);

create table auth.sessions (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references auth.users (id) on delete cascade,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  factor_id uuid,
  aal text not null default 'aal1',
  -- amr entries of the session, kept so that a refreshed token carries the same methods.
  amr jsonb not null default '[]'::jsonb,
  not_after timestamptz,
  refreshed_at timestamptz,
  user_agent text,
  ip text
);
create index sessions_user_id_idx on auth.sessions (user_id);

create table auth.refresh_tokens (
  id bigserial primary key,
  token varchar(255) not null unique,
  user_id uuid not null references auth.users (id) on delete cascade,
  session_id uuid not null references auth.sessions (id) on delete cascade,
  parent varchar(255),
  revoked boolean not null default false,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index refresh_tokens_session_id_idx on auth.refresh_tokens (session_id);
create index refresh_tokens_parent_idx on auth.refresh_tokens (parent);

-- Nothing in auth is readable through the API roles; the server reads it as the owner.
alter table auth.users enable row level security;
alter table auth.identities enable row level security;
alter table auth.sessions enable row level security;
alter table auth.refresh_tokens enable row level security;

-- The same definitions as Supabase's (supabase/auth migrations), so policies read alike on both.
-- nullif: a transaction-local setting reads '' (not NULL) once its transaction has ended.
create function auth.uid() returns uuid
language sql stable
as $$
  select coalesce(
    nullif(current_setting('request.jwt.claim.sub', true), ''),
    (nullif(current_setting('request.jwt.claims', true), '')::jsonb ->> 'sub')
  )::uuid
$$;

create function auth.role() returns text
language sql stable
as $$
  select coalesce(
    nullif(current_setting('request.jwt.claim.role', true), ''),
    (nullif(current_setting('request.jwt.claims', true), '')::jsonb ->> 'role')
  )::text
$$;

create function auth.email() returns text
language sql stable
as $$
  select coalesce(
    nullif(current_setting('request.jwt.claim.email', true), ''),
    (nullif(current_setting('request.jwt.claims', true), '')::jsonb ->> 'email')
  )::text
$$;

create function auth.jwt() returns jsonb
language sql stable
as $$
  select coalesce(
    nullif(current_setting('request.jwt.claim', true), ''),
    nullif(current_setting('request.jwt.claims', true), '')
  )::jsonb
$$;

grant execute on function auth.uid(), auth.role(), auth.email(), auth.jwt() to anon, authenticated, service_role;
