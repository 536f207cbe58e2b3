-- The plans on sale. Products are data: a new plan is a new row, no code change. Fixed ids so that
-- links and tests can name them; existing rows are left as an admin may have edited them. The node
-- images are NodeHarbor's own builds, pushed to its operators' registry (README, Running real nodes).
insert into public.products (id, name, description, price, features, is_active, renew_interval, base_product_code, properties,
                             node_image, node_cpus, node_memory_mb, uptime_threshold_seconds, down_alert_minutes, down_alert_note,
                             node_driver, machine_server_type, machine_image, machine_locations, machine_workload)
values
  ('00000000-0000-4000-8000-000000000001', 'Town Star',
   'A managed Gala Town Star node, started with your own Gala API key.', 10.00,
   array['Deployed within minutes', '24/7 monitoring', 'Automatic updates', 'Automatic failover'],
   true, '1 MONTH', 'TOWNSTAR', null, null, 1, 1024, null, 5, 'After about 10 minutes offline, Gala may pair your licence with another node.',
   'machine', 'cx23', 'debian-12', array['fsn1', 'nbg1', 'hel1'], 'townstar'),
  ('00000000-0000-4000-8000-000000000002', 'Town Star (quarterly)',
   'The Town Star node, renewed every three months.', 30.00,
   array['Deployed within minutes', '24/7 monitoring', 'Automatic updates', 'Automatic failover'],
   true, '3 MONTH', 'TOWNSTAR', null, null, 1, 1024, null, 5, 'After about 10 minutes offline, Gala may pair your licence with another node.',
   'machine', 'cx23', 'debian-12', array['fsn1', 'nbg1', 'hel1'], 'townstar'),
  ('00000000-0000-4000-8000-000000000003', 'Master Node',
   'A managed Playa3ull Master Node, started with your Master Node License Key.', 3.00,
   array['Deployed within minutes', '24/7 monitoring', 'Automatic updates'],
   true, '1 MONTH', 'MASTERNODE',
   '{"data_name":"Master Node License Key","data_description":"The licence key contains only letters, digits and hyphens","data_validation":{"valid_chars":"A-Za-z0-9-","format":"############-####-####-####-############"}}',
   'nodeharbor/playa3ull-masternode:1', 0.5, 512, 8 * 3600, null, null,
   'swarm', null, null, null, null)
on conflict (id) do nothing;
