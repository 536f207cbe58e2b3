-- The hosting domain: products, services, credits and their ledger, purchases, profiles, contact
-- messages and memberships. Reads go through RLS; money and service flags change only inside the
-- SECURITY DEFINER functions of 0003, so a client that skips our forms still cannot break a rule.

create schema if not exists private;
revoke all on schema private from public;

-- ---------------------------------------------------------------- memberships

create table public.admin_users (
  user_id uuid primary key references auth.users (id) on delete cascade,
  created_at timestamptz not null default now()
);
alter table public.admin_users enable row level security;
create policy "Users can see their own admin membership" on public.admin_users
  for select to authenticated using (user_id = auth.uid());

create table public.dev_access_users (
  user_id uuid primary key references auth.users (id) on delete cascade,
  created_at timestamptz not null default now()
);
alter table public.dev_access_users enable row level security;
create policy "Users can see their own dev access" on public.dev_access_users
  for select to authenticated using (user_id = auth.uid());

-- Used by policies; SECURITY DEFINER so that a policy can ask without the caller seeing the table.
create function private.is_admin(p_user_id uuid) returns boolean
language sql stable security definer set search_path = ''
as $$ select exists (select 1 from public.admin_users where user_id = p_user_id) $$;
grant usage on schema private to anon, authenticated, service_role;

-- ---------------------------------------------------------------- products

create table public.products (
  id uuid primary key default gen_random_uuid(),
  name text not null,
  description text,
  price numeric(12, 2) not null check (price >= 0),
  features text[] not null default '{}',
  is_active boolean not null default true,
  -- '1 MONTH' is monthly; any other interval is treated as quarterly (spec §3); null: one-time.
  renew_interval text check (renew_interval is null or renew_interval ~ '^[0-9]+ (MONTH|MONTHS|DAY|DAYS|YEAR|YEARS)$'),
  base_product_code text,
  -- JSON text: data_name, data_description, data_validation {minimum_length, maximum_length, valid_chars, ends_with}.
  properties text,
  created_at timestamptz not null default now()
);
alter table public.products enable row level security;
create policy "Anyone can read active products" on public.products
  for select to anon, authenticated using (is_active);
create policy "Admins can read every product" on public.products
  for select to authenticated using (private.is_admin(auth.uid()));

-- ---------------------------------------------------------------- profiles and credits

create table public.profiles (
  id uuid primary key references auth.users (id) on delete cascade,
  full_name text check (char_length(full_name) <= 200),
  email text,
  company text check (char_length(company) <= 200),
  company_vat text check (char_length(company_vat) <= 50),
  darkmode_enabled boolean not null default false,
  language text not null default 'en-US' check (language in ('en-US', 'en-GB', 'es', 'fr', 'de')),
  time_zone text not null default 'UTC' check (char_length(time_zone) <= 64),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
alter table public.profiles enable row level security;
create policy "Users can read their own profile" on public.profiles
  for select to authenticated using (id = auth.uid());
create policy "Users can update their own profile" on public.profiles
  for update to authenticated using (id = auth.uid()) with check (id = auth.uid());
-- The e-mail mirrors the account and is read-only (spec §5): only these columns may change.
revoke insert, update, delete on public.profiles from anon, authenticated;
grant update (full_name, company, company_vat, darkmode_enabled, language, time_zone, updated_at) on public.profiles to authenticated;

create table public.user_credits (
  user_id uuid primary key references auth.users (id) on delete cascade,
  balance numeric(12, 2) not null default 0 check (balance >= 0),
  updated_at timestamptz not null default now()
);
alter table public.user_credits enable row level security;
create policy "Users can read their own balance" on public.user_credits
  for select to authenticated using (user_id = auth.uid());
revoke insert, update, delete on public.user_credits from anon, authenticated;

-- The ledger. Append-only; the balance always equals the sum of a user's rows. No foreign key to
-- the user: the rows the law needs outlive a deleted account.
create table public.credit_transactions (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null,
  type text not null check (type in ('purchase', 'service_charge', 'refund', 'admin_credit')),
  description text not null,
  amount numeric(12, 2) not null check (amount <> 0),
  service_id uuid,
  -- A retried request, a duplicated webhook or a restarted job carries the same key: counted once.
  idempotency_key text not null,
  created_at timestamptz not null default now(),
  unique (user_id, idempotency_key)
);
create index credit_transactions_user_created_idx on public.credit_transactions (user_id, created_at desc);
alter table public.credit_transactions enable row level security;
create policy "Users can read their own transactions" on public.credit_transactions
  for select to authenticated using (user_id = auth.uid());
revoke insert, update, delete on public.credit_transactions from anon, authenticated;

create function private.refuse_ledger_change() returns trigger
language plpgsql set search_path = ''
as $$
begin
  raise exception 'The ledger is append-only' using errcode = '42501';
end
$$;
create trigger credit_transactions_append_only before update or delete on public.credit_transactions
  for each row execute function private.refuse_ledger_change();

create table public.credit_purchases (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references auth.users (id) on delete cascade,
  amount numeric(12, 2) not null check (amount >= 1),
  status text not null default 'pending' check (status in ('pending', 'completed', 'rejected', 'expired')),
  provider text not null,
  provider_order_id text unique,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index credit_purchases_user_created_idx on public.credit_purchases (user_id, created_at desc);
alter table public.credit_purchases enable row level security;
create policy "Users can read their own purchases" on public.credit_purchases
  for select to authenticated using (user_id = auth.uid());
revoke insert, update, delete on public.credit_purchases from anon, authenticated;

-- ---------------------------------------------------------------- services

-- The rows live outside the API's schema: the API key is stored encrypted, and public.services
-- (below) shows each user their own rows with the key decrypted for them alone.
create table private.services (
  id uuid primary key default gen_random_uuid(),
  user_id uuid not null references auth.users (id) on delete cascade,
  name text not null,
  description text,
  api_key_encrypted bytea not null,
  product_id uuid references public.products (id),
  created_at timestamptz not null default now(),
  renews_at timestamptz,
  expired boolean not null default false,
  is_installed boolean not null default false,
  is_deleting boolean not null default false,
  is_deleted boolean not null default false,
  updated_at timestamptz not null default now()
);
create index services_user_idx on private.services (user_id, created_at desc);
-- Names are unique per user among services that are not deleted, whatever their case.
create unique index services_user_name_key on private.services (user_id, lower(name)) where not is_deleted;
create index services_renews_at_idx on private.services (renews_at) where not is_deleted and not expired;
alter table private.services enable row level security;
revoke all on private.services from anon, authenticated, service_role;

create function private.encryption_key() returns text
language sql stable security definer set search_path = ''
as $$ select value from nodeharbor.settings where key = 'encryption_key' $$;

create view public.services with (security_barrier) as
select s.id, s.user_id, s.name, s.description,
       extensions.pgp_sym_decrypt(s.api_key_encrypted, private.encryption_key()) as api_key,
       s.product_id, s.created_at, s.renews_at, s.expired, s.is_installed, s.is_deleting, s.is_deleted
  from private.services s
 where s.user_id = auth.uid();
revoke all on public.services from anon, authenticated, service_role;
grant select on public.services to authenticated;

-- ---------------------------------------------------------------- contact messages

create table public.contact_messages (
  id uuid primary key default gen_random_uuid(),
  name text not null,
  email text not null,
  topic text not null check (topic in ('sales', 'support')),
  message text not null,
  created_at timestamptz not null default now()
);
alter table public.contact_messages enable row level security;
create policy "Admins can read contact messages" on public.contact_messages
  for select to authenticated using (private.is_admin(auth.uid()));
revoke insert, update, delete on public.contact_messages from anon, authenticated;

-- ---------------------------------------------------------------- a profile and a balance per user

create function private.handle_new_user() returns trigger
language plpgsql security definer set search_path = ''
as $$
begin
  insert into public.profiles (id, full_name, email)
  values (new.id, nullif(trim(new.raw_user_meta_data ->> 'full_name'), ''), new.email);
  insert into public.user_credits (user_id) values (new.id);
  return new;
end
$$;
create trigger on_auth_user_created after insert on auth.users
  for each row execute function private.handle_new_user();

create function private.handle_user_email_change() returns trigger
language plpgsql security definer set search_path = ''
as $$
begin
  update public.profiles set email = new.email, updated_at = now() where id = new.id;
  return new;
end
$$;
create trigger on_auth_user_email_changed after update of email on auth.users
  for each row when (old.email is distinct from new.email) execute function private.handle_user_email_change();
