-- Issue 33, item 9: an installation's timeout (INSTALL_TIMEOUT_SECONDS) counts from the moment the
-- worker hands the node to the engine, no longer from the service's creation. A service waiting in
-- the queue behind others (a backlog of installs, a few slots) waits; it is never failed for
-- waiting. The moment is kept in the row, so that a worker taking over a killed one's job does not
-- start the clock again. Its owner reads install_queued while it waits for a free slot.
-- A service installing when this runs starts its clock when its job next runs.

alter table private.services
  -- When the worker began this installation (provisioning/install-node.ts); null while it is queued.
  add column install_started_at timestamptz;

-- Each installation has its own start: a retried or reused service waits in the queue again.
create function private.clear_install_start() returns trigger
language plpgsql set search_path = ''
as $$
begin
  if new.state = 'installing' then
    new.install_started_at := null;
  end if;
  return new;
end
$$;
revoke all on function private.clear_install_start() from public;
create trigger services_clear_install_start before update of state on private.services
  for each row when (old.state is distinct from new.state) execute function private.clear_install_start();

-- ---------------------------------------------------------------- what the owner reads

-- As in 0028, with install_started_at at the end.
create or replace view private.service_rows as
select s.id, s.user_id, s.name, s.description, s.api_key_encrypted, s.product_id, s.created_at, s.renews_at,
       s.state in ('expired', 'suspended') as expired,
       s.state not in ('installing', 'failed') as is_installed,
       s.state = 'deleting' as is_deleting,
       s.state = 'deleted' as is_deleted,
       s.state, s.provisioning_error, s.terminates_at, s.install_started_at
  from private.services s;

-- As in 0028 (moved to private by 0033), with install_queued at the end.
create or replace view private.own_services with (security_barrier) as
select r.id, r.user_id, r.name, r.description,
       private.decrypt_api_key(r.user_id, r.api_key_encrypted) as api_key,
       r.product_id, r.created_at, r.renews_at, r.expired, r.is_installed, r.is_deleting, r.is_deleted,
       r.state::text as state, r.provisioning_error,
       private.node_state_of(r.state, (select n.state from private.node_status n where n.service_id = r.id),
                             (select m.swept_at from private.node_monitor m)) as node_state,
       (select case when n.state = 'online' then (select m.swept_at from private.node_monitor m) else n.last_seen_at end
          from private.node_status n where n.service_id = r.id) as last_seen_at,
       r.terminates_at,
       r.state = 'installing' and r.install_started_at is null as install_queued
  from private.service_rows r
 where r.user_id = auth.uid() and (select private.meets_required_aal());

-- The API's view lists the columns its select * found in 0033: the new one is added the same way.
create or replace view public.services with (security_invoker = true) as select * from private.own_services;

-- As in 0028, with install_queued: the answer to a creation or a retry says the service is queued.
create or replace function private.service_json(p_id uuid) returns jsonb
language sql stable security definer set search_path = ''
as $$
  select jsonb_build_object(
    'id', r.id, 'user_id', r.user_id, 'name', r.name, 'description', r.description,
    'api_key', private.decrypt_with_either_key(r.api_key_encrypted),
    'product_id', r.product_id, 'created_at', r.created_at, 'renews_at', r.renews_at,
    'expired', r.expired, 'is_installed', r.is_installed, 'is_deleting', r.is_deleting, 'is_deleted', r.is_deleted,
    'state', r.state, 'provisioning_error', r.provisioning_error, 'terminates_at', r.terminates_at,
    'install_queued', r.state = 'installing' and r.install_started_at is null)
  from private.service_rows r where r.id = p_id
$$;
