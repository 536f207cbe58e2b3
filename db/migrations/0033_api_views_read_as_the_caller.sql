-- Supabase's linter, 0010 security_definer_view: a view in the API's schema runs as its owner, so
-- the row-level security of what it reads does not apply to the caller. public.services and
-- public.service_uptime read private tables the API roles may not read (the encrypted key, node
-- status, uptime), and each has always guarded itself in its WHERE: the caller's own rows, and
-- the second-factor rule. Those guarded views move out of the API's schema unchanged; the API's
-- views now read them as the caller (security_invoker), who is granted those and nothing under them.

alter view public.services rename to own_services;
alter view public.own_services set schema private;
revoke all on private.own_services from anon, authenticated, service_role;
grant select on private.own_services to authenticated;

create view public.services with (security_invoker = true) as select * from private.own_services;
revoke all on public.services from anon, authenticated, service_role;
grant select on public.services to authenticated;

alter view public.service_uptime rename to own_service_uptime;
alter view public.own_service_uptime set schema private;
revoke all on private.own_service_uptime from anon, authenticated, service_role;
grant select on private.own_service_uptime to authenticated;

create view public.service_uptime with (security_invoker = true) as select * from private.own_service_uptime;
revoke all on public.service_uptime from anon, authenticated, service_role;
grant select on public.service_uptime to authenticated;
