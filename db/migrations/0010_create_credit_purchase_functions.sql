-- Credit purchases (design §2 Payments): pending → completed (credited once) or rejected/expired.
-- A signed-in user may only start a purchase for themselves; settling it is the server's, on the
-- payment provider's word, through the functions below that no API role can execute.

create index credit_purchases_pending_idx on public.credit_purchases (created_at) where status = 'pending';

-- Starts a purchase for the caller, whoever the body claimed to be. The rules repeat
-- purchaseCreditsSchema (src/shared/validation.ts) so that no other caller can skip them.
create function private.begin_credit_purchase(p_amount numeric, p_provider text) returns uuid
language plpgsql security definer set search_path = ''
as $$
declare
  purchase_id uuid;
begin
  if auth.uid() is null then
    raise exception 'User not authenticated' using errcode = '42501';
  end if;
  if p_amount is null or p_amount <> round(p_amount, 2) then
    raise exception 'The amount must be a number of dollars with at most 2 decimals' using errcode = '22023';
  end if;
  if p_amount < 1 then
    raise exception 'Minimum purchase is $1' using errcode = '22023';
  end if;
  if p_amount > 10000 then
    raise exception 'Maximum purchase is $10,000' using errcode = '22023';
  end if;
  if p_provider is null or p_provider not in ('paypal', 'test') then
    raise exception 'Unknown payment provider' using errcode = '22023';
  end if;
  insert into public.credit_purchases (user_id, amount, provider)
  values (auth.uid(), p_amount, p_provider)
  returning id into purchase_id;
  return purchase_id;
end
$$;

-- Records the provider's order for a purchase, once.
create function private.attach_purchase_order(p_purchase_id uuid, p_order_id text) returns boolean
language sql security definer set search_path = ''
as $$
  update public.credit_purchases set provider_order_id = p_order_id, updated_at = now()
   where id = p_purchase_id and provider_order_id is null and status = 'pending'
  returning true
$$;

/* The one place a purchase becomes money. The purchase row is locked, so a webhook, the return URL
   and reconciliation arriving together settle it one after the other; the ledger key is the
   provider's order id, so even a second pass could not count it twice. A capture after we gave up
   (rejected, expired) is still money received, so it is still credited. */
create function private.complete_purchase(p_order_id text, p_captured_cents bigint) returns jsonb
language plpgsql security definer set search_path = ''
as $$
declare
  p public.credit_purchases;
begin
  select * into p from public.credit_purchases where provider_order_id = p_order_id for update;
  if not found then
    return jsonb_build_object('outcome', 'unknown');
  end if;
  if p.status = 'completed' then
    return jsonb_build_object('outcome', 'already', 'purchase_id', p.id, 'user_id', p.user_id, 'amount', p.amount);
  end if;
  if p_captured_cents is null or p_captured_cents <> round(p.amount * 100) then
    raise exception 'Order % captured % cents for a purchase of %', p_order_id, p_captured_cents, p.amount;
  end if;
  perform 1 from public.user_credits where user_id = p.user_id for update;
  perform private.post_transaction(
    p.user_id, p.amount, 'purchase',
    case p.provider when 'paypal' then 'Credit purchase via PayPal' else 'Credit purchase (test payment)' end,
    null, p_order_id);
  update public.credit_purchases set status = 'completed', updated_at = now() where id = p.id;
  return jsonb_build_object('outcome', 'credited', 'purchase_id', p.id, 'user_id', p.user_id, 'amount', p.amount);
end
$$;

-- A pending purchase that will not be paid: declined, cancelled or voided (rejected), or never
-- approved in time (expired). Returns the purchase's status afterwards.
create function private.close_purchase(p_purchase_id uuid, p_status text) returns text
language plpgsql security definer set search_path = ''
as $$
declare
  result text;
begin
  if p_status is null or p_status not in ('rejected', 'expired') then
    raise exception 'A purchase is closed as rejected or expired';
  end if;
  update public.credit_purchases set status = p_status, updated_at = now()
   where id = p_purchase_id and status = 'pending';
  select status into result from public.credit_purchases where id = p_purchase_id;
  return result;
end
$$;

revoke all on function private.begin_credit_purchase(numeric, text), private.attach_purchase_order(uuid, text),
  private.complete_purchase(text, bigint), private.close_purchase(uuid, text) from public, anon, authenticated, service_role;
-- Called by the purchase-credits function inside the caller's own transaction and role.
grant execute on function private.begin_credit_purchase(numeric, text) to authenticated;

-- The built-in test provider's orders (used when PayPal is not configured): server-internal.
create table nodeharbor.test_payment_orders (
  id text primary key,
  purchase_id uuid not null,
  amount_cents bigint not null check (amount_cents > 0),
  status text not null default 'CREATED' check (status in ('CREATED', 'APPROVED', 'VOIDED', 'COMPLETED')),
  return_url text not null,
  cancel_url text not null,
  created_at timestamptz not null default now()
);
alter table nodeharbor.test_payment_orders enable row level security;
