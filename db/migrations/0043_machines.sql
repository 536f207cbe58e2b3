-- Town Star nodes on machines of their own (issue 35; docs/decisions/036). A product names the
-- driver that runs its nodes: Swarm for container-native products, or one rented cloud server
-- per node ("machine"), whose settings are data on the row. Products are readable by anyone, so
-- nothing here is a secret (the provider's price, for the margin, will not live on this row). Each machine's agent claims the
-- customer's key once with a one-time bootstrap token, then reports every 30 s with a token of its
-- own; both are kept only as SHA-256 hashes (they are 32 random bytes, so a hash is enough).

-- ---------------------------------------------------------------- products

alter table public.products
  add column node_driver text not null default 'swarm' check (node_driver in ('swarm', 'machine')),
  -- The provider's names (MACHINE_PROVIDER's): a server type, an image, and the locations to try in order.
  add column machine_server_type text check (char_length(machine_server_type) between 1 and 64),
  add column machine_image text check (char_length(machine_image) between 1 and 64),
  add column machine_locations text[] check (cardinality(machine_locations) between 1 and 10),
  -- The vendor's workload the agent adds (Gala: townstar).
  add column machine_workload text check (machine_workload ~ '^[a-z0-9-]{1,32}$'),
  add constraint products_machine_settings check (
    node_driver = 'swarm'
    or (machine_server_type is not null and machine_image is not null and machine_locations is not null and machine_workload is not null)
  );

-- ---------------------------------------------------------------- machines

create table private.machines (
  service_id uuid primary key references private.services (id) on delete cascade,
  -- MACHINE_PROVIDER when it was made ("hetzner"), and the provider's id once the server exists.
  provider text not null,
  server_id text,
  location text,
  ipv4 inet,
  bootstrap_token_hash bytea not null unique check (octet_length(bootstrap_token_hash) = 32),
  bootstrap_expires_at timestamptz not null,
  bootstrap_claimed_at timestamptz,
  -- Why the server's boot script stopped before its agent ran, in the script's words (node-boot-failed).
  boot_error text check (char_length(boot_error) between 1 and 500),
  agent_token_hash bytea unique check (octet_length(agent_token_hash) = 32),
  -- Powered off by us (suspension, expiry): its node is stopped, not down.
  powered_off boolean not null default false,
  -- A new key waits for the agent's next heartbeat, and is handed over once (node-key).
  key_pending boolean not null default false,
  -- Commands for the agent's next heartbeat (restart, stop, start).
  commands text[] not null default '{}' check (commands <@ array['restart', 'stop', 'start']),
  -- The agent's last report, bounded as the heartbeat is, the key redacted.
  agent_state text check (agent_state in ('starting', 'running', 'stopped', 'refused')),
  agent_status text check (char_length(agent_status) <= 4096),
  agent_logs text[] not null default '{}' check (cardinality(agent_logs) <= 50),
  agent_error text check (char_length(agent_error) <= 500),
  -- The first heartbeat of the current unbroken run of "running" reports.
  running_since timestamptz,
  last_heartbeat_at timestamptz,
  created_at timestamptz not null default now()
);
alter table private.machines enable row level security;
revoke all on private.machines from public, anon, authenticated, service_role;

-- ---------------------------------------------------------------- Town Star

-- Town Star moves to machines of its own, as seeded (db/seed/0001_products.sql): a small shared
-- server in Hetzner's German and Finnish locations, running Gala's townstar workload. The
-- operator may change every setting; a row an admin has moved off the seeded image keeps its driver.
update public.products
set node_driver = 'machine', node_image = null, machine_server_type = 'cx22', machine_image = 'debian-12',
    machine_locations = array['fsn1', 'nbg1', 'hel1'], machine_workload = 'townstar'
where base_product_code = 'TOWNSTAR' and node_image = 'nodeharbor/townstar-node:1';
