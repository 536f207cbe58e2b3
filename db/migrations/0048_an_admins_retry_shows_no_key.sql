-- An admin who retried another user's failed installation was answered the service with the
-- customer's decrypted key (private.service_json decrypts as the database's owner). No screen may
-- show an admin a customer's key (0039, docs/security.md): the answer to an admin leaves it out.
-- As in 0023, but for its answer.
create or replace function public.retry_service_installation(p_service_id uuid) returns jsonb
language plpgsql security definer set search_path = ''
as $$
declare
  uid uuid := auth.uid();
  svc private.services;
  by_admin boolean;
begin
  perform private.require_aal2_if_enrolled();
  if uid is null or not private.is_live_user(uid) then
    raise exception 'You must be logged in' using errcode = '42501';
  end if;
  by_admin := private.is_admin(uid);
  select * into svc from private.services where id = p_service_id and (user_id = uid or by_admin);
  if svc.id is null then
    raise exception 'Service not found' using errcode = 'PT404';
  end if;
  -- The owner's credit row first, as every writer of services does, then the service.
  perform 1 from public.user_credits where user_id = svc.user_id for update;
  select * into svc from private.services where id = p_service_id for update;
  if svc.state <> 'failed' then
    raise exception 'Only a service whose installation failed can be retried' using errcode = 'PT409';
  end if;
  update private.services set state = 'installing' where id = svc.id;
  perform private.record_service_event(svc.id, 'retry_requested',
    jsonb_build_object('by', case when svc.user_id = uid then 'owner' else 'admin' end));
  if svc.user_id <> uid then
    perform private.record_admin_action('service.retry_install', 'service', svc.id::text, svc.name,
      jsonb_build_object('state', 'failed', 'error', svc.provisioning_error), jsonb_build_object('state', 'installing'));
  end if;
  perform nodeharbor.enqueue_job('install-service', jsonb_build_object('serviceId', svc.id));
  -- The owner's own answer carries their key; an admin's never does.
  return case when svc.user_id = uid then private.service_json(svc.id) else private.service_json(svc.id) - 'api_key' end;
end
$$;
