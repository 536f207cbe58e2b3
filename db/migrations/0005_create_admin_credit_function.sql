-- The admin area adds credit with a note: one admin_credit ledger row and the balance with it.
-- Admins only; the note becomes the transaction's description, which the user sees in Billing.

create function public.admin_add_credit(p_user_id uuid, p_amount numeric, p_note text, p_idempotency_key text default null)
returns numeric
language plpgsql security definer set search_path = ''
as $$
declare
  new_balance numeric;
begin
  if not private.is_admin(auth.uid()) then
    raise exception 'Only admins can add credit' using errcode = '42501';
  end if;
  if p_amount is null or p_amount <= 0 or p_amount <> round(p_amount, 2) or p_amount >= 10000000000 then
    raise exception 'The amount must be a positive number of dollars with at most two decimals';
  end if;
  if coalesce(trim(p_note), '') = '' or char_length(p_note) > 500 then
    raise exception 'A note of 1 to 500 characters is required';
  end if;
  if p_idempotency_key is not null and (p_idempotency_key = '' or char_length(p_idempotency_key) > 200) then
    raise exception 'p_idempotency_key must be 1 to 200 characters';
  end if;
  perform 1 from public.user_credits where user_id = p_user_id for update;
  if not found then
    raise exception 'No such user';
  end if;
  -- The key names the admin, so two admins' retries never merge into one credit.
  perform private.post_transaction(p_user_id, p_amount, 'admin_credit', trim(p_note), null,
    'admin:' || auth.uid()::text || ':' || coalesce(p_idempotency_key, gen_random_uuid()::text));
  select balance into new_balance from public.user_credits where user_id = p_user_id;
  return new_balance;
end
$$;
