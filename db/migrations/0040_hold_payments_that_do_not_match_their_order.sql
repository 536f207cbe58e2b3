-- Issue 42, item 2 (decision 031): a capture, refund or reversal whose currency or amount is not
-- what our order says credits and debits nothing. The purchase or refund is held, the audit log
-- records it once, and the server alerts the admins with what the database answers.

-- What the provider reported for a purchase it captured in another currency or amount: such a
-- purchase is never credited afterwards, whatever else is reported for it.
alter table public.credit_purchases add column mismatch text check (char_length(mismatch) <= 100);

-- A held refund or reversal books no debit. It keeps an amount reserved (its own when we asked for
-- it, otherwise what was left to refund) so that no admin refunds more until a person has looked.
alter table public.credit_refunds drop constraint credit_refunds_status_check;
alter table public.credit_refunds add constraint credit_refunds_status_check check (status in ('pending', 'completed', 'failed', 'held'));
alter table public.credit_refunds drop constraint credit_refunds_amount_check;
alter table public.credit_refunds add constraint credit_refunds_amount_check check (amount > 0 or (status = 'held' and amount >= 0));
alter table public.credit_refunds add column mismatch text check (char_length(mismatch) <= 100);

-- ---------------------------------------------------------------- reading the provider's amount

-- Our orders are in US dollars (paypal.ts createOrder). A provider's value, as it wrote it, is
-- dollars only when it is digits with at most two decimals, the way PayPal writes USD: anything
-- else (a sign, an exponent, "9.001") reads as null, which matches nothing.
create function private.provider_dollars(p_currency text, p_value text) returns numeric
language sql immutable set search_path = ''
as $$ select case when p_currency = 'USD' and p_value ~ '^[0-9]{1,10}([.][0-9]{1,2})?$' then p_value::numeric end $$;
revoke all on function private.provider_dollars(text, text) from public, anon, authenticated, service_role;

-- What the provider reported, for people: "JPY 9". Kept short, as it reaches the audit log and a mail.
create function private.reported_money(p_currency text, p_value text) returns text
language sql immutable set search_path = ''
as $$ select left(coalesce(p_currency, '?'), 10) || ' ' || left(coalesce(p_value, '?'), 30) $$;
revoke all on function private.reported_money(text, text) from public, anon, authenticated, service_role;

-- The audit entry of a mismatch, and what the server needs to alert the admins. Called only from
-- the definer functions below, as their owner: no API role may execute it.
create function private.record_payment_mismatch(
  p public.credit_purchases, p_what text, p_reference text, p_currency text, p_value text, p_expectation text, p_expected numeric
) returns jsonb
language plpgsql set search_path = ''
as $$
declare
  reported text := private.reported_money(p_currency, p_value);
  expected text := 'USD ' || to_char(p_expected, 'FM9999999990.00');
  reference text := left(p_reference, 100);
  email text := (select u.email from auth.users u where u.id = p.user_id);
begin
  perform private.record_admin_action('purchase.payment_mismatch', 'user', p.user_id::text, email,
    jsonb_build_object('purchase_id', p.id, 'order_id', p.provider_order_id, 'expectation', p_expectation, 'expected', expected),
    jsonb_build_object('what', p_what, 'reference', reference, 'reported', reported), 'server');
  return jsonb_build_object('outcome', 'mismatch', 'first', true, 'purchase_id', p.id, 'user_id', p.user_id, 'user_email', email,
                            'order_id', p.provider_order_id, 'what', p_what, 'reference', reference, 'reported', reported,
                            'expectation', p_expectation, 'expected', expected);
end
$$;
revoke all on function private.record_payment_mismatch(public.credit_purchases, text, text, text, text, text, numeric)
  from public, anon, authenticated, service_role;

-- ---------------------------------------------------------------- completing a purchase

-- As 0029's, and the capture's currency and value must be the order's, exactly: anything else
-- closes a pending purchase as rejected without a credit, once. The server's own role calls it;
-- no API role may.
drop function private.complete_purchase(text, bigint, text, jsonb);
create function private.complete_purchase(p_order_id text, p_currency text, p_value text, p_capture_id text, p_seller jsonb)
returns jsonb
language plpgsql security definer set search_path = ''
as $$
declare
  p public.credit_purchases;
  receipt text;
  reference text := coalesce(p_capture_id, p_order_id);
begin
  select * into p from public.credit_purchases where provider_order_id = p_order_id for update;
  if not found then
    return jsonb_build_object('outcome', 'unknown');
  end if;
  -- Kept even for a capture that does not match: its refund events then find this purchase.
  if p_capture_id is not null and p.provider_capture_id is null then
    update public.credit_purchases set provider_capture_id = p_capture_id where id = p.id;
  end if;
  if private.provider_dollars(p_currency, p_value) is distinct from p.amount then
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
    return jsonb_build_object('outcome', 'already', 'purchase_id', p.id, 'user_id', p.user_id, 'amount', p.amount);
  end if;
  -- Held before: a later report of the right amount does not make that capture right.
  if p.mismatch is not null then
    return jsonb_build_object('outcome', 'mismatch', 'first', false, 'purchase_id', p.id, 'status', p.status);
  end if;
  perform 1 from public.user_credits where user_id = p.user_id for update;
  if not private.post_transaction(
      p.user_id, p.amount, 'purchase',
      case p.provider when 'paypal' then 'Credit purchase via PayPal' else 'Credit purchase (test payment)' end,
      null, p_order_id) then
    raise exception 'The credit of order % was not written', p_order_id;
  end if;
  update public.credit_purchases set status = 'completed', updated_at = now() where id = p.id;
  receipt := private.issue_document('receipt', p, null, null, p.amount, coalesce(p_capture_id, p.provider_capture_id, p_order_id), p_seller);
  return jsonb_build_object('outcome', 'credited', 'purchase_id', p.id, 'user_id', p.user_id, 'amount', p.amount, 'receipt', receipt);
end
$$;
revoke all on function private.complete_purchase(text, text, text, text, jsonb) from public, anon, authenticated, service_role;

-- ---------------------------------------------------------------- booking a refund

-- As 0029's, and what the provider reports must be the order's currency and an amount the purchase
-- can give back: exactly what we asked for (our own refund), or at most what is left to refund (a
-- refund in PayPal's dashboard, a reversal), of a purchase that was credited. Anything else is held
-- (see above), once: the provider's refund id is kept, so its duplicates find it. The server's own
-- role calls it; no API role may.
drop function private.book_refund(uuid, uuid, text, bigint, text, jsonb);
create function private.book_refund(
  p_purchase_id uuid, p_refund_id uuid, p_provider_refund_id text, p_currency text, p_value text, p_kind text, p_seller jsonb
) returns jsonb
language plpgsql security definer set search_path = ''
as $$
declare
  p public.credit_purchases;
  r public.credit_refunds;
  refunded numeric := private.provider_dollars(p_currency, p_value);
  expectation text;
  expected numeric;
  over boolean := false;
  receipt text;
  note text;
begin
  if p_kind is null or p_kind not in ('refund', 'reversal') then
    raise exception 'A refund is booked as refund or reversal';
  end if;
  if p_provider_refund_id is null then
    raise exception 'A refund needs the provider''s id';
  end if;
  select * into p from public.credit_purchases where id = p_purchase_id for update;
  if not found then
    return jsonb_build_object('outcome', 'unknown');
  end if;
  select * into r from public.credit_refunds where provider_refund_id = p_provider_refund_id;
  if found then
    return jsonb_build_object('outcome', 'already', 'refund_id', r.id, 'user_id', r.user_id);
  end if;
  if p_refund_id is not null then
    select * into r from public.credit_refunds where id = p_refund_id and purchase_id = p.id for update;
  end if;
  if r.id is not null and r.status in ('completed', 'held') then
    return jsonb_build_object('outcome', 'already', 'refund_id', r.id, 'user_id', r.user_id);
  end if;
  if p.status <> 'completed' then
    expectation := 'nothing';
    expected := 0;
  elsif r.id is not null and r.status = 'failed' and r.amount > greatest(private.refundable(p.id), 0) then
    -- Marked failed, its amount was freed and refunded since: booked now, it would take more than
    -- was paid, whatever PayPal reports.
    expectation := 'at_most';
    expected := greatest(private.refundable(p.id), 0);
    over := true;
  elsif r.id is not null then
    expectation := 'exactly';
    expected := r.amount;
  else
    expectation := 'at_most';
    expected := greatest(private.refundable(p.id), 0);
  end if;
  if over or expectation = 'nothing' or refunded is null or refunded < 0.01
     or (expectation = 'exactly' and refunded is distinct from expected) or (expectation = 'at_most' and refunded > expected) then
    if r.id is not null then
      update public.credit_refunds
         set status = 'held', provider_refund_id = p_provider_refund_id, unknown_since = null, updated_at = now(),
             mismatch = private.reported_money(p_currency, p_value)
       where id = r.id
      returning * into r;
    else
      insert into public.credit_refunds (purchase_id, user_id, amount, kind, status, provider_refund_id, mismatch)
      values (p.id, p.user_id, expected, p_kind, 'held', p_provider_refund_id,
              private.reported_money(p_currency, p_value))
      returning * into r;
    end if;
    return private.record_payment_mismatch(p, p_kind, p_provider_refund_id, p_currency, p_value, expectation, expected)
           || jsonb_build_object('refund_id', r.id);
  end if;
  if r.id is not null then
    update public.credit_refunds
       set status = 'completed', provider_refund_id = p_provider_refund_id, failure = null, unknown_since = null, updated_at = now()
     where id = r.id
    returning * into r;
  else
    insert into public.credit_refunds (purchase_id, user_id, amount, kind, status, provider_refund_id)
    values (p.id, p.user_id, refunded, p_kind, 'completed', p_provider_refund_id)
    returning * into r;
  end if;
  select number into receipt from public.billing_documents where purchase_id = p.id and kind = 'receipt';
  perform 1 from public.user_credits where user_id = p.user_id for update;
  perform private.post_transaction(
    p.user_id, -r.amount, 'refund',
    case r.kind when 'reversal' then 'Payment reversed by PayPal' else 'Refund' end
      || coalesce(' (receipt ' || receipt || ')', ''),
    null, 'refund:' || r.id, true);
  note := private.issue_document('credit_note', p, r.id, receipt, r.amount, p_provider_refund_id, p_seller);
  return jsonb_build_object('outcome', 'booked', 'refund_id', r.id, 'user_id', p.user_id, 'amount', r.amount, 'kind', r.kind,
                            'credit_note', note, 'balance', (select balance from public.user_credits where user_id = p.user_id));
end
$$;
revoke all on function private.book_refund(uuid, uuid, text, text, text, text, jsonb) from public, anon, authenticated, service_role;
