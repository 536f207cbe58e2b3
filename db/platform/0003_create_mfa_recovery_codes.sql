-- Recovery codes for two-factor sign-in (not in Supabase): ten single-use codes per user, which
-- raise a session to aal2 when the authenticator app is lost. Only a hash of each is kept; the
-- codes themselves are shown once, when they are made.

create table auth.mfa_recovery_codes (
  id bigserial primary key,
  user_id uuid not null references auth.users (id) on delete cascade,
  -- SHA-256 (hex) of the user id and the normalised code; see src/server/auth/mfa-recovery-codes.ts.
  code_hash text not null,
  created_at timestamptz not null default now(),
  used_at timestamptz
);
create index mfa_recovery_codes_user_id_idx on auth.mfa_recovery_codes (user_id);

-- Read and written only by the server, as the owner: no policy lets an API role near it.
alter table auth.mfa_recovery_codes enable row level security;
