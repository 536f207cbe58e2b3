-- Issue 42, item 6: private.decrypt_api_key checked that p_user_id was the caller, never that the
-- ciphertext was that user's: a signed-in user holding another's ciphertext (a leaked dump, a view
-- added later) had it decrypted by passing their own id. No API path reaches it today; its one
-- caller is the owner's services view (private.own_services, 0037), which passes each row's owner
-- and ciphertext and so reads on as before. It now decrypts only a key stored on a service of the
-- caller's, at the second-factor level the caller needs, and nothing for a deleted account. No
-- admin is let through: no screen shows an admin a customer's key (docs/security.md). The worker,
-- the drivers, node-logs and keys:reencrypt decrypt as the database's owner with
-- private.decrypt_with_either_key, which no API role may call, and are not changed.
create or replace function private.decrypt_api_key(p_user_id uuid, p_encrypted bytea) returns text
language sql stable security definer set search_path = ''
as $$
  select private.decrypt_with_either_key(s.api_key_encrypted)
    from private.services s
   where s.user_id = p_user_id
     and s.user_id = auth.uid()
     and s.api_key_encrypted = p_encrypted
     and private.is_live_user(auth.uid())
     and private.meets_required_aal()
   limit 1
$$;
