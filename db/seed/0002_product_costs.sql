-- What a product's node costs us a month (migration 0044; admins only): the seeded Town Star plans
-- rent Hetzner's cx23. Only while a product still rents one; a cost the operator recorded stays.
insert into private.product_costs (product_id, monthly_cost_usd, basis)
select p.id, 4.81,
       'Hetzner Cloud cx23: EUR 4.11 a month before VAT (prices of 1 April 2026, docs.cnap.tech/compute/providers/hetzner), at USD 1.17 per euro; check the console for today''s price'
  from public.products p
 where p.id in ('00000000-0000-4000-8000-000000000001', '00000000-0000-4000-8000-000000000002')
   and p.node_driver = 'machine' and p.machine_server_type = 'cx23'
on conflict (product_id) do nothing;
