-- Key messages name the key as its plan's label does (issue 17): the Master Node's field is
-- labelled "Master Node License Key", so its messages say "License key must be at least 20
-- characters long", where a plan without a label keeps spec §5's "API key ...". The words are
-- src/shared/validation.ts's keyNoun and messages; test/domain/validation-agreement.test.ts runs
-- the same cases through both. The functions below are those of 0004, 0014 and 0020 with only
-- the key's name changed.

-- The label's last two words, the second in lower case unless it is an acronym.
create function private.key_noun(p_properties text) returns text
language plpgsql immutable set search_path = ''
as $$
declare
  props jsonb := private.parse_properties(p_properties);
  label text;
  words text[];
  n integer;
  last_word text;
begin
  if jsonb_typeof(props -> 'data_name') = 'string' then
    label := btrim(props ->> 'data_name');
  end if;
  if coalesce(label, '') = '' then
    label := 'API Key';
  end if;
  words := regexp_split_to_array(label, ' +');
  n := array_length(words, 1);
  if n = 1 then
    return words[1];
  end if;
  last_word := words[n];
  return words[n - 1] || ' ' || case when last_word = upper(last_word) then last_word else lower(last_word) end;
end
$$;

-- Like the other private helpers (0003), for the database's own functions only.
revoke execute on function private.key_noun(text) from public, anon, authenticated;

create or replace function private.api_key_error(p_key text, p_properties text) returns text
language plpgsql immutable set search_path = ''
as $$
declare
  props jsonb := private.parse_properties(p_properties);
  rule jsonb := props -> 'data_validation';
  field text := private.key_noun(p_properties);
begin
  if rule is null or jsonb_typeof(rule) <> 'object' then
    return case
      when char_length(p_key) < 44 or char_length(p_key) > 46 then format('%s must be 44-46 characters long', field)
      when p_key ~ '[\t\n\v\f\r \u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]' then format('%s cannot contain spaces', field)
      when right(p_key, 1) <> '=' then format('%s must end with "="', field)
      when p_key !~ '^[A-Za-z0-9+/=]+$' then format('%s contains invalid characters', field)
    end;
  end if;
  if rule ? 'minimum_length' and char_length(p_key) < (rule ->> 'minimum_length')::int then
    return format('%s must be at least %s characters long', field, rule ->> 'minimum_length');
  end if;
  if rule ? 'maximum_length' and char_length(p_key) > (rule ->> 'maximum_length')::int then
    return format('%s must be at most %s characters long', field, rule ->> 'maximum_length');
  end if;
  if rule ? 'valid_chars' and p_key !~ ('^[' || (rule ->> 'valid_chars') || ']*$') then
    return coalesce(nullif(props ->> 'data_description', ''), format('%s contains invalid characters', field));
  end if;
  if rule ? 'ends_with' and right(p_key, char_length(rule ->> 'ends_with')) <> (rule ->> 'ends_with') then
    return format('%s must end with "%s"', field, rule ->> 'ends_with');
  end if;
  return null;
end
$$;

-- Spec §5 step 6 ("Please provide a valid API key"), with the plan's name for its key; the rule
-- that failed goes in the details.
create or replace function private.check_api_key(p_key text, p_properties text) returns void
language plpgsql stable set search_path = ''
as $$
declare
  problem text := private.api_key_error(p_key, p_properties);
begin
  if problem is not null then
    raise exception 'Please provide a valid %', private.key_noun(p_properties) using detail = problem;
  end if;
end
$$;

-- Step 4 ("API key is required") names the chosen plan's key; with no plan it is the API key.
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
  if exists (select 1 from private.services where user_id = uid and state <> 'deleted' and lower(name) = lower(p_name)) then
    raise exception 'A service with this name already exists';
  end if;
  select * into product from public.products where id = p_product_id and is_active;
  if coalesce(p_api_key, '') = '' then
    raise exception '% is required', private.key_noun(product.properties);
  end if;
  if product.id is null then
    raise exception 'Please select a service plan';
  end if;
  perform private.check_api_key(p_api_key, product.properties);
  if char_length(p_description) > 500 then
    raise exception 'The description must be at most 500 characters';
  end if;

  -- An unused purchased service of this product comes first: earliest renewal first, none last.
  select s.id into reuse_id from private.services s
   where s.user_id = uid and s.product_id = p_product_id and private.is_reusable(s.state, s.renews_at)
   order by s.renews_at asc nulls last, s.created_at
   limit 1;
  if reuse_id is not null then
    update private.services
       set name = p_name, description = null,
           api_key_encrypted = private.encrypt_api_key(p_api_key),
           state = 'installing'
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
  -- renews_at is moved on by the time the node takes to first run (the transition trigger).
  insert into private.services (id, user_id, name, description, api_key_encrypted, product_id, renews_at)
  values (new_id, uid, p_name, nullif(trim(p_description), ''),
          private.encrypt_api_key(p_api_key), p_product_id,
          case when product.renew_interval is null then null else now() + product.renew_interval::interval end);
  perform private.request_install(new_id, jsonb_build_object('reused', false, 'charged', product.price));
  return private.service_json(new_id) || jsonb_build_object('reused', false, 'charged', product.price);
end
$$;

-- A key change or reactivation without a key names the key of the service's plan.
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
    select properties into props from public.products where id = svc.product_id;
    if coalesce(new_key, '') = '' and (p_operation = 'reactivate' or p_updates ? 'api_key') then
      raise exception '% is required', private.key_noun(props);
    end if;
    if new_key is not null then
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
