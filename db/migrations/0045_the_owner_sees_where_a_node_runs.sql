-- The owner sees where a node on a machine of its own runs (issue 35, item 5): the provider's
-- location of its server (fsn1), which the service page names. Nothing else of the machine is the
-- owner's to read: its address and tokens stay private.

-- As in 0041, with location at the end; null for a node without a machine of its own.
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
       r.state = 'installing' and r.install_started_at is null as install_queued,
       (select n.online_since from private.node_status n where n.service_id = r.id) as online_since,
       (select mc.location from private.machines mc where mc.service_id = r.id) as location
  from private.service_rows r
 where r.user_id = auth.uid() and (select private.meets_required_aal());

create or replace view public.services with (security_invoker = true) as select * from private.own_services;
