-- Issue 33, item 3: while failed sign-ins lock an account for addresses it has not signed in
-- from, the right password from such an address e-mails the owner a link that lets that address
-- in (src/server/auth/address-links.ts). A link works once, for a few minutes, for the account and
-- from the address it was made for. Only its SHA-256 is kept: a leaked row cannot be used.
create table nodeharbor.address_links (
  token_hash text primary key,
  user_id uuid not null references auth.users (id) on delete cascade,
  -- text, as auth.known_addresses.ip: the address may come from X-Forwarded-For.
  ip text not null,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null
);
-- Deleting an account finds its links by the key; the prune job finds expired ones.
create index address_links_user_id_idx on nodeharbor.address_links (user_id);
create index address_links_expires_at_idx on nodeharbor.address_links (expires_at);
alter table nodeharbor.address_links enable row level security;
