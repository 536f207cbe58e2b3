-- Server-internal tables live in schema nodeharbor, which the REST API never exposes.
create schema if not exists nodeharbor;
revoke all on schema nodeharbor from public;

-- Every e-mail the server sends is recorded here first; without SMTP_URL this is where mail stays,
-- so a newcomer can read a reset link (npm run cli -- mail:list).
create table nodeharbor.outbox (
  id bigserial primary key,
  created_at timestamptz not null default now(),
  to_address text not null,
  subject text not null,
  text_body text not null,
  html_body text,
  -- 'kept' (no SMTP configured), 'sent', or 'failed' with the reason in error.
  status text not null default 'kept' check (status in ('kept', 'sent', 'failed')),
  error text,
  sent_at timestamptz
);
create index outbox_to_address_idx on nodeharbor.outbox (to_address, created_at desc);

-- Server-held settings that SECURITY DEFINER functions read (the API-key encryption key). The
-- server writes them at start from its environment; no API role can read this table.
create table nodeharbor.settings (
  key text primary key,
  value text not null
);

-- Fixed-window request counters shared by every server process (see src/server/http/rate-limit.ts).
create table nodeharbor.rate_limits (
  key text primary key,
  window_start timestamptz not null,
  count integer not null
);
