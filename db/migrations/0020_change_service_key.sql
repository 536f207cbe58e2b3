-- A customer changes a service's key (rotation) or renames it (issue 17). Both go through
-- manage_service_operation's 'update', with the checks of 0016 kept as they were. What is new:
-- - a changed key is an event (key_changed, never the key) and, for a node that exists in the
--   engine (active, expired, suspended), a job that hands it the new key, enqueued in this
--   transaction so that a committed change always reaches the node. An installing node reads
--   the key when it is installed; a failed one when it is retried. The job carries the service
--   id only: it decrypts the key when it runs, so two quick changes both end with the latest.
-- - a new name is an event (renamed, with both names). The node is untouched: its Swarm service
--   is named after the service id.
-- An unchanged key or name changes nothing and records nothing.

create or replace function public.manage_service_operation(p_service_id uuid, p_operation text, p_updates jsonb default null)
returns jsonb
language plpgsql security definer set search_path = ''
as $$
declare
  uid uuid := auth.uid();
  svc private.services;
  props text;
  new_name text;
  new_key text;
  problem text;
  key_changed boolean;
begin
  perform private.require_aal2_if_enrolled();
  if uid is null or not private.is_live_user(uid) then
    raise exception 'You must be logged in' using errcode = '42501';
  end if;
  perform 1 from public.user_credits where user_id = uid for update;
  select * into svc from private.services where id = p_service_id and user_id = uid;
  if svc.id is null then
    raise exception 'Service not found' using errcode = 'PT404';
  end if;
  if p_updates is not null and jsonb_typeof(p_updates) <> 'object' then
    raise exception 'p_updates must be an object';
  end if;

  if p_operation = 'delete' then
    if svc.state in ('deleting', 'deleted') then
      raise exception 'Service is currently being deleted...';
    end if;
    if svc.state = 'installing' then
      raise exception 'Cannot delete, service is currently installing...';
    end if;
    update private.services set state = 'deleting' where id = svc.id;
    perform private.record_service_event(svc.id, 'delete_requested');
    perform nodeharbor.enqueue_job('uninstall-service', jsonb_build_object('serviceId', svc.id));

  elsif p_operation in ('update', 'reactivate') then
    if p_updates is null or exists (select 1 from jsonb_object_keys(p_updates) k where k not in ('name', 'description', 'api_key')) then
      raise exception 'Only name, description and api_key can be updated';
    end if;
    if exists (select 1 from jsonb_each(p_updates) e where jsonb_typeof(e.value) not in ('string', 'null')) then
      raise exception 'name, description and api_key must be text';
    end if;
    if p_operation = 'reactivate' then
      if not private.is_reusable(svc.state, svc.renews_at) then
        raise exception 'This service cannot be reactivated';
      end if;
    elsif svc.state in ('deleting', 'deleted') then
      raise exception 'Service is currently being deleted...';
    end if;
    new_name := coalesce(p_updates ->> 'name', svc.name);
    if trim(new_name) = '' then
      raise exception 'Service name is required';
    end if;
    problem := private.service_name_error(new_name);
    if problem is not null then
      raise exception '%', problem;
    end if;
    if exists (select 1 from private.services where user_id = uid and state <> 'deleted' and id <> svc.id and lower(name) = lower(new_name)) then
      raise exception 'A service with this name already exists';
    end if;
    new_key := p_updates ->> 'api_key';
    if coalesce(new_key, '') = '' and (p_operation = 'reactivate' or p_updates ? 'api_key') then
      raise exception 'API key is required';
    end if;
    if new_key is not null then
      select properties into props from public.products where id = svc.product_id;
      perform private.check_api_key(new_key, props);
    end if;
    if char_length(p_updates ->> 'description') > 500 then
      raise exception 'The description must be at most 500 characters';
    end if;
    key_changed := new_key is not null and new_key is distinct from private.decrypt_with_either_key(svc.api_key_encrypted);
    update private.services
       set name = new_name,
           description = case when p_operation = 'reactivate' or p_updates ? 'description'
                              then nullif(trim(p_updates ->> 'description'), '')
                              else description end,
           api_key_encrypted = coalesce(private.encrypt_api_key(new_key), api_key_encrypted),
           state = case when p_operation = 'reactivate' then 'installing' else state end,
           updated_at = now()
     where id = svc.id;
    if p_operation = 'reactivate' then
      perform private.request_install(svc.id, jsonb_build_object('reused', true));
    else
      if new_name <> svc.name then
        perform private.record_service_event(svc.id, 'renamed', jsonb_build_object('from', svc.name, 'to', new_name));
      end if;
      if key_changed then
        perform private.record_service_event(svc.id, 'key_changed');
        if svc.state in ('active', 'expired', 'suspended') then
          perform nodeharbor.enqueue_job('update-node-key', jsonb_build_object('serviceId', svc.id));
        end if;
      end if;
    end if;
  else
    raise exception 'Unknown operation: %', p_operation;
  end if;
  return private.service_json(svc.id);
end
$$;
