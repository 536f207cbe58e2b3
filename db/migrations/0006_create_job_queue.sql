-- Durable jobs in our own table (docs/decisions/003-jobs-in-our-own-table.md): the same SQL on
-- PGlite and PostgreSQL, and a job enqueued by a SQL function commits or rolls back with the
-- change it follows. Workers claim with FOR UPDATE SKIP LOCKED under a lease (locked_until), so a
-- job whose worker died is claimed again once the lease runs out.
create table nodeharbor.jobs (
  id bigserial primary key,
  task text not null,
  payload jsonb not null default '{}',
  -- Idempotent enqueue: a second job with the same key is not created (on conflict do nothing).
  key text unique,
  status text not null default 'pending' check (status in ('pending', 'running', 'done', 'failed')),
  run_at timestamptz not null default now(),
  attempts integer not null default 0,
  max_attempts integer not null default 5 check (max_attempts >= 1),
  locked_by text,
  locked_until timestamptz,
  last_error text,
  created_at timestamptz not null default now(),
  finished_at timestamptz
);
create index jobs_ready_idx on nodeharbor.jobs (run_at) where status in ('pending', 'running');
create index jobs_finished_idx on nodeharbor.jobs (finished_at) where status in ('done', 'failed');
-- Internal: no API role has usage on schema nodeharbor; RLS on with no policy denies everyone else too.
alter table nodeharbor.jobs enable row level security;

/* Enqueues a job in the caller's transaction. Returns its id, or null when a job with this key
   already exists. Not SECURITY DEFINER: only the owner and the owner's own SECURITY DEFINER
   functions can reach schema nodeharbor. */
create function nodeharbor.enqueue_job(
  p_task text, p_payload jsonb default '{}', p_key text default null, p_run_at timestamptz default null,
  p_max_attempts integer default 5
) returns bigint
language sql set search_path = ''
as $$
  insert into nodeharbor.jobs (task, payload, key, run_at, max_attempts)
  values (p_task, coalesce(p_payload, '{}'), p_key, coalesce(p_run_at, now()), coalesce(p_max_attempts, 5))
  on conflict (key) do nothing
  returning id
$$;
revoke all on function nodeharbor.enqueue_job(text, jsonb, text, timestamptz, integer) from public;

-- Mail is queued: 'queued' until the send-email job hands it to the relay. A key makes a mail
-- that must go once per occasion (the low-balance warning of a period) go once.
alter table nodeharbor.outbox drop constraint outbox_status_check;
alter table nodeharbor.outbox add constraint outbox_status_check check (status in ('queued', 'kept', 'sent', 'failed'));
alter table nodeharbor.outbox add column key text unique;
alter table nodeharbor.outbox add column attempts integer not null default 0;

-- What the simulated provisioning driver believes runs: the stand-in for a real engine's state,
-- kept in the database so that it survives a restart as a real node would.
create table nodeharbor.simulated_nodes (
  service_id uuid primary key,
  state text not null check (state in ('running', 'stopped')),
  -- How many times an install finished: more than 1 means a node was installed twice.
  installs integer not null default 0,
  updated_at timestamptz not null default now()
);
alter table nodeharbor.simulated_nodes enable row level security;
