-- Top-ups in crypto through a hosted invoice (issue 38, item 1; decision 050). A crypto invoice is
-- settled by what arrived: the processor's final state says how much, in USD at the invoice's own
-- rate, and that is what is credited, once, through the same complete_purchase as PayPal's, with
-- the same receipt. What the customer sees of an under- or overpayment, or of a payment made after
-- the invoice expired, is the purchase's note.

alter table public.credit_purchases
  add column credited numeric(12, 2) check (credited > 0),
  add column note text check (char_length(note) <= 200);

-- As in 0016, with the crypto processor among the providers.
create or replace function private.begin_credit_purchase(p_amount numeric, p_provider text) returns uuid
language plpgsql security definer set search_path = ''
as $$
declare
  purchase_id uuid;
begin
  perform private.require_aal2_if_enrolled();
  if auth.uid() is null or not private.is_live_user(auth.uid()) then
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
  if p_provider is null or p_provider not in ('paypal', 'test', 'nowpayments') then
    raise exception 'Unknown payment provider' using errcode = '22023';
  end if;
  insert into public.credit_purchases (user_id, amount, provider)
  values (auth.uid(), p_amount, p_provider)
  returning id into purchase_id;
  return purchase_id;
end
$$;

-- As in 0040. With p_by_value, the capture is an invoice settled by what arrived: any positive USD
-- amount is credited (p_note says how it differs from the order), where PayPal's must be exactly
-- the order's. A settlement in another currency, or of nothing, is held as a mismatch all the same.
drop function private.complete_purchase(text, text, text, text, jsonb);
create function private.complete_purchase(
  p_order_id text, p_currency text, p_value text, p_capture_id text, p_seller jsonb, p_by_value boolean default false, p_note text default null
)
returns jsonb
language plpgsql security definer set search_path = ''
as $$
declare
  p public.credit_purchases;
  receipt text;
  reference text := coalesce(p_capture_id, p_order_id);
  paid numeric := private.provider_dollars(p_currency, p_value);
  booked numeric;
begin
  select * into p from public.credit_purchases where provider_order_id = p_order_id for update;
  if not found then
    return jsonb_build_object('outcome', 'unknown');
  end if;
  -- Kept even for a capture that does not match: its refund events then find this purchase.
  if p_capture_id is not null and p.provider_capture_id is null then
    update public.credit_purchases set provider_capture_id = p_capture_id where id = p.id;
  end if;
  booked := case when p_by_value then paid else p.amount end;
  if paid is null or paid <= 0 or (not p_by_value and paid <> p.amount) then
    if p.mismatch is not null then
      return jsonb_build_object('outcome', 'mismatch', 'first', false, 'purchase_id', p.id, 'status', p.status);
    end if;
    update public.credit_purchases
       set mismatch = private.reported_money(p_currency, p_value), updated_at = now(),
           status = case when status = 'pending' then 'rejected' else status end
     where id = p.id
    returning * into p;
    return private.record_payment_mismatch(p, 'capture', reference, p_currency, p_value, 'exactly', p.amount)
           || jsonb_build_object('status', p.status);
  end if;
  if p.status = 'completed' then
    return jsonb_build_object('outcome', 'already', 'purchase_id', p.id, 'user_id', p.user_id, 'amount', coalesce(p.credited, p.amount));
  end if;
  -- Held before: a later report of the right amount does not make that capture right.
  if p.mismatch is not null then
    return jsonb_build_object('outcome', 'mismatch', 'first', false, 'purchase_id', p.id, 'status', p.status);
  end if;
  perform 1 from public.user_credits where user_id = p.user_id for update;
  if not private.post_transaction(
      p.user_id, booked, 'purchase',
      case p.provider when 'paypal' then 'Credit purchase via PayPal'
                      when 'nowpayments' then 'Credit purchase in crypto (NOWPayments)'
                      else 'Credit purchase (test payment)' end,
      null, p_order_id) then
    raise exception 'The credit of order % was not written', p_order_id;
  end if;
  update public.credit_purchases
     set status = 'completed', updated_at = now(),
         credited = case when p_by_value then booked end, note = left(p_note, 200)
   where id = p.id
  returning * into p;
  receipt := private.issue_document('receipt', p, null, null, booked, coalesce(p_capture_id, p.provider_capture_id, p_order_id), p_seller);
  return jsonb_build_object('outcome', 'credited', 'purchase_id', p.id, 'user_id', p.user_id, 'amount', booked, 'receipt', receipt);
end
$$;
revoke all on function private.complete_purchase(text, text, text, text, jsonb, boolean, text) from public, anon, authenticated, service_role;

-- As in 0029: what is left to refund of a purchase is what it credited (a crypto invoice settled
-- by what arrived), less every refund not failed.
create or replace function private.refundable(p_purchase_id uuid) returns numeric
language sql stable security definer set search_path = ''
as $$
  select coalesce(p.credited, p.amount)
         - coalesce((select sum(r.amount) from public.credit_refunds r where r.purchase_id = p.id and r.status <> 'failed'), 0)
    from public.credit_purchases p where p.id = p_purchase_id
$$;
