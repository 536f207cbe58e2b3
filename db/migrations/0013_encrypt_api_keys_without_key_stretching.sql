-- API keys are encrypted with a salted S2K (mode 1) instead of pgp_sym_encrypt's default iterated
-- S2K (mode 3). Iteration stretches a password a person could guess; our key is the server's
-- random ENCRYPTION_KEY, which nothing could guess, so stretching it only made every read slow:
-- decrypting a mode-3 ciphertext hashes 65 536 to 253 952 bytes and costs about 0.2 ms, the
-- largest part of listing one's services (bench/README.md, case 1); mode 1 costs about 0.01 ms.
-- The salt still gives every ciphertext its own session key. pgp_sym_decrypt reads the mode from
-- the ciphertext, so reading is unchanged; the two functions that store a key are redefined as
-- in 0007 with only their encryption changed, and the keys already stored are encrypted again.
-- delete_own_account (0011) keeps storing its blank key the old way: nobody reads it again.

create function private.encrypt_api_key(p_api_key text) returns bytea
language sql volatile set search_path = ''
as $$ select extensions.pgp_sym_encrypt(p_api_key, private.encryption_key(), 's2k-mode=1') $$;
revoke all on function private.encrypt_api_key(text) from public, anon, authenticated, service_role;

create or replace function public.create_service_securely(
  p_name text, p_description text, p_api_key text, p_product_id uuid
) returns jsonb
language plpgsql security definer set search_path = ''
as $$
declare
  uid uuid := private.require_user();
  product public.products;
  problem text;
  reuse_id uuid;
  new_id uuid;
begin
  -- One creation at a time per user: the credit row is the lock, so every check below, the
  -- uniqueness of the name included, sees the truth and still runs in the order of spec §5.
  perform 1 from public.user_credits where user_id = uid for update;

  if coalesce(trim(p_name), '') = '' then
    raise exception 'Service name is required';
  end if;
  problem := private.service_name_error(p_name);
  if problem is not null then
    raise exception '%', problem;
  end if;
  if exists (select 1 from private.services where user_id = uid and not is_deleted and lower(name) = lower(p_name)) then
    raise exception 'A service with this name already exists';
  end if;
  if coalesce(p_api_key, '') = '' then
    raise exception 'API key is required';
  end if;
  select * into product from public.products where id = p_product_id and is_active;
  if product.id is null then
    raise exception 'Please select a service plan';
  end if;
  perform private.check_api_key(p_api_key, product.properties);
  if char_length(p_description) > 500 then
    raise exception 'The description must be at most 500 characters';
  end if;

  -- An unused purchased service of this product comes first: earliest renewal first, none last.
  select s.id into reuse_id from private.services s
   where s.user_id = uid and s.product_id = p_product_id and s.is_deleted and not s.expired
     and (s.renews_at is null or s.renews_at > now())
   order by s.renews_at asc nulls last, s.created_at
   limit 1;
  if reuse_id is not null then
    update private.services
       set name = p_name, description = null,
           api_key_encrypted = private.encrypt_api_key(p_api_key),
           is_deleted = false, is_deleting = false, is_installed = false, updated_at = now()
     where id = reuse_id;
    perform private.request_install(reuse_id, jsonb_build_object('reused', true));
    return private.service_json(reuse_id) || jsonb_build_object('reused', true, 'charged', 0);
  end if;

  new_id := gen_random_uuid();
  if product.price > 0 and not private.post_transaction(
      uid, -product.price, 'service_charge', format('Service creation for %s (%s)', p_name, product.name), new_id,
      'service-create:' || new_id::text) then
    raise exception 'Insufficient funds and no reusable services available. Please purchase more credits.';
  end if;
  insert into private.services (id, user_id, name, description, api_key_encrypted, product_id, renews_at)
  values (new_id, uid, p_name, nullif(trim(p_description), ''),
          private.encrypt_api_key(p_api_key), p_product_id,
          case when product.renew_interval is null then null else now() + product.renew_interval::interval end);
  perform private.request_install(new_id, jsonb_build_object('reused', false, 'charged', product.price));
  return private.service_json(new_id) || jsonb_build_object('reused', false, 'charged', product.price);
end
$$;


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
begin
  if uid is null then
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
    if svc.is_deleted or svc.is_deleting then
      raise exception 'Service is currently being deleted...';
    end if;
    if not svc.is_installed then
      raise exception 'Cannot delete, service is currently installing...';
    end if;
    update private.services set is_deleting = true, updated_at = now() where id = svc.id;
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
      if not svc.is_deleted or svc.expired or (svc.renews_at is not null and svc.renews_at <= now()) then
        raise exception 'This service cannot be reactivated';
      end if;
    elsif svc.is_deleted or svc.is_deleting then
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
    if exists (select 1 from private.services where user_id = uid and not is_deleted and id <> svc.id and lower(name) = lower(new_name)) then
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
    update private.services
       set name = new_name,
           description = case when p_operation = 'reactivate' or p_updates ? 'description'
                              then nullif(trim(p_updates ->> 'description'), '')
                              else description end,
           api_key_encrypted = coalesce(private.encrypt_api_key(new_key), api_key_encrypted),
           is_deleted = false,
           is_installed = case when p_operation = 'reactivate' then false else is_installed end,
           updated_at = now()
     where id = svc.id;
    if p_operation = 'reactivate' then
      perform private.request_install(svc.id, jsonb_build_object('reused', true));
    end if;
  else
    raise exception 'Unknown operation: %', p_operation;
  end if;
  return private.service_json(svc.id);
end
$$;

-- Only iterated ciphertexts (byte 4, the S2K type of the session-key packet, is 3) are redone.
update private.services
   set api_key_encrypted = private.encrypt_api_key(extensions.pgp_sym_decrypt(api_key_encrypted, private.encryption_key()))
 where get_byte(api_key_encrypted, 4) = 3;
