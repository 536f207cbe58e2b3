-- Multi-factor authentication (TOTP), with Supabase's table and column names so that exported
-- users and their factors read alike here and on a hosted project. `aal` and `amr` stay on
-- auth.sessions (0001); a session's factor_id names the factor that raised it to aal2.

create table auth.mfa_factors (
  id uuid primary key,
  user_id uuid not null references auth.users (id) on delete cascade,
  friendly_name text,
  factor_type text not null check (factor_type in ('totp', 'webauthn', 'phone')),
  status text not null check (status in ('unverified', 'verified')),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  -- The TOTP secret, encrypted by the server (AES-256-GCM, GoTrue's EncryptedString JSON).
  secret text,
  phone text,
  last_challenged_at timestamptz,
  -- Not in Supabase: the last TOTP time step accepted, so a code cannot be replayed in its window.
  last_totp_step bigint
);
-- Supabase's rule: a non-blank friendly name is unique per user.
create unique index mfa_factors_user_friendly_name_unique on auth.mfa_factors (friendly_name, user_id)
  where trim(friendly_name) <> '';
create index factor_id_created_at_idx on auth.mfa_factors (user_id, created_at);

create table auth.mfa_challenges (
  id uuid primary key default gen_random_uuid(),
  factor_id uuid not null references auth.mfa_factors (id) on delete cascade,
  created_at timestamptz not null default now(),
  verified_at timestamptz,
  -- text, not Supabase's inet: the address comes from X-Forwarded-For behind a proxy, and an
  -- unparseable one must not fail the request.
  ip_address text not null,
  otp_code text
);
create index mfa_challenge_created_at_idx on auth.mfa_challenges (created_at desc);
create index mfa_challenges_factor_id_idx on auth.mfa_challenges (factor_id);

alter table auth.sessions add constraint sessions_aal_check check (aal in ('aal1', 'aal2', 'aal3'));
create index sessions_factor_id_idx on auth.sessions (factor_id) where factor_id is not null;

alter table auth.mfa_factors enable row level security;
alter table auth.mfa_challenges enable row level security;
