-- update_user_credits (issue 15): a charge may name only a service of the user it charges, and a
-- deleted account's access token, valid until it expires, records nothing. Otherwise as in 0004.

create or replace function public.update_user_credits(
  p_user_id uuid, p_amount numeric, p_transaction_type text, p_description text,
  p_service_id uuid default null, p_idempotency_key text default null
) returns boolean
language plpgsql security definer set search_path = ''
as $$
declare
  trusted boolean := auth.role() = 'service_role';
begin
  if not trusted and (auth.uid() is null or auth.uid() <> p_user_id or not private.is_live_user(auth.uid())) then
    raise exception 'You can only change your own balance' using errcode = '42501';
  end if;
  if not trusted and p_amount > 0 then
    raise exception 'Only the service can add credit' using errcode = '42501';
  end if;
  if p_amount is null or p_amount = 0 or p_amount <> round(p_amount, 2) or abs(p_amount) >= 10000000000 then
    raise exception 'The amount must be a non-zero number of cents';
  end if;
  if p_transaction_type is null or p_transaction_type not in ('purchase', 'service_charge', 'refund', 'admin_credit') then
    raise exception 'Unknown transaction type: %', p_transaction_type;
  end if;
  if not trusted and p_transaction_type <> 'service_charge' then
    raise exception 'A user can only record a service_charge' using errcode = '42501';
  end if;
  if coalesce(trim(p_description), '') = '' or char_length(p_description) > 500 then
    raise exception 'A description of 1 to 500 characters is required';
  end if;
  if p_idempotency_key is not null and (p_idempotency_key = '' or char_length(p_idempotency_key) > 200) then
    raise exception 'p_idempotency_key must be 1 to 200 characters';
  end if;
  if p_service_id is not null and not exists (select 1 from private.services where id = p_service_id and user_id = p_user_id) then
    raise exception 'No such service';
  end if;
  perform 1 from public.user_credits where user_id = p_user_id for update;
  if not found then
    raise exception 'No such user';
  end if;
  -- A user's keys live in their own namespace, so they can never collide with the server's.
  return private.post_transaction(p_user_id, p_amount, p_transaction_type, p_description, p_service_id,
    coalesce(case when trusted then p_idempotency_key else 'user:' || p_idempotency_key end,
             'manual:' || gen_random_uuid()::text));
end
$$;
