-- The encryption key leaves the database (docs/decisions/011): a dump or a backup held it beside
-- every API key it encrypts. The server now gives it to each transaction as a transaction-local
-- setting (src/server/db/with-encryption-keys.ts), which lives in the backend's memory only, and
-- the database keeps an HMAC of a fixed label under the key, so that a start with the wrong key
-- is refused instead of writing data nothing could read (src/server/encryption-key-check.ts).
-- The key stored until now becomes that check value; the server still has it in its environment
-- or in DATA_DIR/secrets.json, since a start with any other key was refused before.

insert into nodeharbor.settings (key, value)
select 'encryption_key_check', encode(extensions.hmac('nodeharbor encryption key check', value, 'sha256'), 'hex')
  from nodeharbor.settings where key = 'encryption_key'
on conflict (key) do nothing;
delete from nodeharbor.settings where key = 'encryption_key';

-- The key of this transaction; an error, not a silent null that pgcrypto would turn into
-- unreadable data, when the server did not give one.
create or replace function private.encryption_key() returns text
language plpgsql stable security invoker set search_path = ''
as $$
declare
  k text := nullif(current_setting('nodeharbor.encryption_key', true), '');
begin
  if k is null then
    raise exception 'No encryption key is set in this transaction' using errcode = '39000';
  end if;
  return k;
end
$$;

-- During a rotation (ENCRYPTION_KEY_PREVIOUS), what was written under the previous key still
-- reads; everything is written under the current key. Without a previous key no exception block
-- (a subtransaction per row) is entered.
create function private.decrypt_with_either_key(p_encrypted bytea) returns text
language plpgsql stable set search_path = ''
as $$
declare
  previous text := nullif(current_setting('nodeharbor.encryption_key_previous', true), '');
begin
  if previous is null then
    return extensions.pgp_sym_decrypt(p_encrypted, private.encryption_key());
  end if;
  begin
    return extensions.pgp_sym_decrypt(p_encrypted, private.encryption_key());
  exception when external_routine_invocation_exception then
    return extensions.pgp_sym_decrypt(p_encrypted, previous);
  end;
end
$$;
revoke all on function private.decrypt_with_either_key(bytea) from public, anon, authenticated, service_role;

create or replace function private.decrypt_api_key(p_user_id uuid, p_encrypted bytea) returns text
language sql stable security definer set search_path = ''
as $$
  select private.decrypt_with_either_key(p_encrypted)
   where p_user_id = auth.uid()
$$;

create or replace function private.service_json(p_id uuid) returns jsonb
language sql stable security definer set search_path = ''
as $$
  select jsonb_build_object(
    'id', r.id, 'user_id', r.user_id, 'name', r.name, 'description', r.description,
    'api_key', private.decrypt_with_either_key(r.api_key_encrypted),
    'product_id', r.product_id, 'created_at', r.created_at, 'renews_at', r.renews_at,
    'expired', r.expired, 'is_installed', r.is_installed, 'is_deleting', r.is_deleting, 'is_deleted', r.is_deleted,
    'state', r.state, 'provisioning_error', r.provisioning_error)
  from private.service_rows r where r.id = p_id
$$;

-- keys:reencrypt (src/server/cli/keys-reencrypt.ts): every stored API key under the current key.
create function private.reencrypt_api_keys() returns bigint
language sql volatile set search_path = ''
as $$
  with done as (
    update private.services
       set api_key_encrypted = private.encrypt_api_key(private.decrypt_with_either_key(api_key_encrypted))
    returning 1
  )
  select count(*) from done
$$;
revoke all on function private.reencrypt_api_keys() from public, anon, authenticated, service_role;
