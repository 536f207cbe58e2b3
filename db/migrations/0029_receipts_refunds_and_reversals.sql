-- Issue 20, items 2 and 3 (decision 021): numbered receipts and credit notes, refunds an admin
-- makes through the provider, and the provider's own refunds and reversals, each booked once.

-- Refunds go to the provider's capture, and PayPal's refund events name the capture, not the order.
alter table public.credit_purchases add column provider_capture_id text;
create unique index credit_purchases_capture_idx on public.credit_purchases (provider_capture_id) where provider_capture_id is not null;

-- A reversal (a chargeback) takes money already spent: the balance may then be negative, and
-- nothing renews until a top-up covers it. post_transaction still refuses to go below zero for
-- everything else.
alter table public.user_credits drop constraint user_credits_balance_check;

-- ---------------------------------------------------------------- document numbers

-- One counter per series and calendar year (UTC). The counter row is taken with the purchase's or
-- refund's own transaction: concurrent issuers wait for each other, and a rolled-back issue rolls
-- its number back, so a year's numbers have no gap and no duplicate.
create table nodeharbor.document_counters (
  series text not null check (series in ('NH', 'NH-CN')),
  year integer not null check (year between 2000 and 9999),
  last_number integer not null check (last_number > 0),
  primary key (series, year)
);
alter table nodeharbor.document_counters enable row level security;

create function private.next_document_number(p_series text, p_at timestamptz) returns text
language plpgsql security definer set search_path = ''
as $$
declare
  y integer := extract(year from p_at at time zone 'UTC')::integer;
  n integer;
begin
  insert into nodeharbor.document_counters as c (series, year, last_number) values (p_series, y, 1)
  on conflict (series, year) do update set last_number = c.last_number + 1
  returning c.last_number into n;
  -- Six digits, and more once a year passes 999,999 (lpad would cut them).
  return format('%s-%s-%s', p_series, y, repeat('0', greatest(0, 6 - length(n::text))) || n);
end
$$;
revoke all on function private.next_document_number(text, timestamptz) from public, anon, authenticated, service_role;

-- ---------------------------------------------------------------- receipts and credit notes

-- What was issued, as it was issued: the buyer and seller are copied in, so a later change of
-- name or configuration never changes a document. No foreign keys: like the ledger, documents
-- outlive a deleted account.
create table public.billing_documents (
  id uuid primary key default gen_random_uuid(),
  number text not null unique,
  kind text not null check (kind in ('receipt', 'credit_note')),
  user_id uuid not null,
  purchase_id uuid not null,
  refund_id uuid,
  -- A credit note names the receipt it corrects.
  receipt_number text,
  amount numeric(12, 2) not null check (amount > 0),
  currency text not null default 'USD',
  provider text not null,
  provider_reference text,
  buyer_name text,
  buyer_email text,
  seller jsonb not null,
  issued_at timestamptz not null default now(),
  check ((kind = 'receipt') = (refund_id is null and receipt_number is null))
);
create unique index billing_documents_receipt_idx on public.billing_documents (purchase_id) where kind = 'receipt';
create unique index billing_documents_credit_note_idx on public.billing_documents (refund_id) where kind = 'credit_note';
create index billing_documents_user_idx on public.billing_documents (user_id, issued_at desc);
alter table public.billing_documents enable row level security;
create policy "Users can read their own documents" on public.billing_documents
  for select to authenticated using (user_id = (select auth.uid()));
revoke insert, update, delete on public.billing_documents from anon, authenticated;
-- As on every table the API exposes (0016): a session short of its factors reaches nothing.
create policy "A verified second factor needs an aal2 session" on public.billing_documents as restrictive for all to authenticated
  using ((select private.meets_required_aal())) with check ((select private.meets_required_aal()));

create function private.refuse_document_change() returns trigger
language plpgsql set search_path = ''
as $$
begin
  raise exception 'Receipts and credit notes cannot be changed' using errcode = '42501';
end
$$;
create trigger billing_documents_immutable before update or delete on public.billing_documents
  for each row execute function private.refuse_document_change();
create trigger billing_documents_not_truncated before truncate on public.billing_documents
  for each statement execute function private.refuse_document_change();
-- Issued by private.issue_document alone: a row written beside it could take the next number.
revoke insert, update, delete, truncate on public.billing_documents from service_role;

-- The buyer's name goes in on one line: a name with line breaks or other control characters could
-- otherwise write lines of its own under "Billed to".
create function private.issue_document(
  p_kind text, p_purchase public.credit_purchases, p_refund_id uuid, p_receipt_number text, p_amount numeric, p_reference text, p_seller jsonb,
  p_issued_at timestamptz default now()
) returns text
language plpgsql security definer set search_path = ''
as $$
declare
  issued timestamptz := p_issued_at;
  doc_number text := private.next_document_number(case p_kind when 'receipt' then 'NH' else 'NH-CN' end, issued);
begin
  insert into public.billing_documents (number, kind, user_id, purchase_id, refund_id, receipt_number, amount, provider,
                                        provider_reference, buyer_name, buyer_email, seller, issued_at)
  select doc_number, p_kind, p_purchase.user_id, p_purchase.id, p_refund_id, p_receipt_number, p_amount, p_purchase.provider,
         p_reference, nullif(btrim(regexp_replace(pr.full_name, '[[:cntrl:]]+', ' ', 'g')), ''), u.email, coalesce(p_seller, '{}'), issued
    from auth.users u left join public.profiles pr on pr.id = u.id
   where u.id = p_purchase.user_id;
  if not found then
    -- The account is gone: the document still names what the purchase knew.
    insert into public.billing_documents (number, kind, user_id, purchase_id, refund_id, receipt_number, amount, provider,
                                          provider_reference, seller, issued_at)
    values (doc_number, p_kind, p_purchase.user_id, p_purchase.id, p_refund_id, p_receipt_number, p_amount, p_purchase.provider,
            p_reference, coalesce(p_seller, '{}'), issued);
  end if;
  return doc_number;
end
$$;
revoke all on function private.issue_document(text, public.credit_purchases, uuid, text, numeric, text, jsonb, timestamptz)
  from public, anon, authenticated, service_role;

-- Every purchase completed before receipts existed gets one now, in the order they completed,
-- dated and numbered in the year it was paid. The seller's configuration is not known here.
do $$
declare
  p public.credit_purchases;
begin
  for p in select * from public.credit_purchases where status = 'completed' order by updated_at, id loop
    perform private.issue_document('receipt', p, null, null, p.amount, p.provider_order_id, '{"name": "NodeHarbor"}', p.updated_at);
  end loop;
end
$$;

-- ---------------------------------------------------------------- completing a purchase

-- As 0010's, and now it keeps the capture and issues the receipt, in the same transaction as the
-- credit. The seller is the server's configuration at that moment.
drop function private.complete_purchase(text, bigint);
create function private.complete_purchase(p_order_id text, p_captured_cents bigint, p_capture_id text, p_seller jsonb)
returns jsonb
language plpgsql security definer set search_path = ''
as $$
declare
  p public.credit_purchases;
  receipt text;
begin
  select * into p from public.credit_purchases where provider_order_id = p_order_id for update;
  if not found then
    return jsonb_build_object('outcome', 'unknown');
  end if;
  if p_capture_id is not null and p.provider_capture_id is null then
    update public.credit_purchases set provider_capture_id = p_capture_id where id = p.id;
  end if;
  if p.status = 'completed' then
    return jsonb_build_object('outcome', 'already', 'purchase_id', p.id, 'user_id', p.user_id, 'amount', p.amount);
  end if;
  if p_captured_cents is null or p_captured_cents <> round(p.amount * 100) then
    raise exception 'Order % captured % cents for a purchase of %', p_order_id, p_captured_cents, p.amount;
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
revoke all on function private.complete_purchase(text, bigint, text, jsonb) from public, anon, authenticated, service_role;

-- ---------------------------------------------------------------- refunds and reversals

-- A refund an admin asked for (pending until the provider answers), or one the provider tells us
-- of: a refund made in its dashboard, or a reversal (a chargeback).
create table public.credit_refunds (
  id uuid primary key default gen_random_uuid(),
  purchase_id uuid not null references public.credit_purchases (id) on delete cascade,
  user_id uuid not null,
  amount numeric(12, 2) not null check (amount > 0),
  kind text not null check (kind in ('refund', 'reversal')),
  status text not null default 'pending' check (status in ('pending', 'completed', 'failed')),
  -- The provider's refund id: a duplicated webhook or a retried call carries the same one.
  provider_refund_id text unique,
  reason text check (char_length(reason) <= 500),
  requested_by uuid,
  failure text,
  -- Set while the provider has not said whether an admin's refund was made (it did not answer).
  unknown_since timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index credit_refunds_purchase_idx on public.credit_refunds (purchase_id);
-- The server's and the admin functions' only: the reason is the admin's own note, and a customer
-- learns of a refund from its credit note (billing_documents) and mail.
alter table public.credit_refunds enable row level security;
revoke all on public.credit_refunds from anon, authenticated, service_role;

-- The ledger write every caller shares, with the one exception a refund needs: it may take the
-- balance below zero. The six-argument form keeps refusing a charge that would; a credit is always
-- written, even one that leaves a negative balance below zero still.
create function private.post_transaction(
  p_user_id uuid, p_amount numeric, p_type text, p_description text, p_service_id uuid, p_idempotency_key text, p_allow_negative boolean
) returns boolean
language plpgsql security definer set search_path = ''
as $$
declare
  inserted int;
begin
  if exists (select 1 from public.credit_transactions where user_id = p_user_id and idempotency_key = p_idempotency_key) then
    return true;
  end if;
  if not p_allow_negative and p_amount < 0 and (select balance from public.user_credits where user_id = p_user_id) + p_amount < 0 then
    return false;
  end if;
  insert into public.credit_transactions (user_id, type, description, amount, service_id, idempotency_key)
  values (p_user_id, p_type, p_description, p_amount, p_service_id, p_idempotency_key)
  on conflict (user_id, idempotency_key) do nothing;
  get diagnostics inserted = row_count;
  if inserted = 1 then
    update public.user_credits set balance = balance + p_amount, updated_at = now() where user_id = p_user_id;
  end if;
  return true;
end
$$;
revoke all on function private.post_transaction(uuid, numeric, text, text, uuid, text, boolean) from public, anon, authenticated, service_role;

create or replace function private.post_transaction(
  p_user_id uuid, p_amount numeric, p_type text, p_description text, p_service_id uuid, p_idempotency_key text
) returns boolean
language sql security definer set search_path = ''
as $$ select private.post_transaction(p_user_id, p_amount, p_type, p_description, p_service_id, p_idempotency_key, false) $$;

-- What is left to refund of a purchase: its amount less every refund not failed.
create function private.refundable(p_purchase_id uuid) returns numeric
language sql stable security definer set search_path = ''
as $$
  select p.amount - coalesce((select sum(r.amount) from public.credit_refunds r where r.purchase_id = p.id and r.status <> 'failed'), 0)
    from public.credit_purchases p where p.id = p_purchase_id
$$;
revoke all on function private.refundable(uuid) from public, anon, authenticated, service_role;

-- An admin's refund, before the provider is asked. The purchase row is locked, so two admins
-- refunding at once cannot together refund more than was paid. Returns what the server needs to
-- ask the provider. A refund of the same amount whose outcome is unknown (the provider did not
-- answer: `unknown_since`) is asked for again under its own id, which the provider takes as the
-- same request: it is made at most once.
create function private.begin_refund(p_purchase_id uuid, p_cents bigint, p_reason text) returns jsonb
language plpgsql security definer set search_path = ''
as $$
declare
  p public.credit_purchases;
  refund_amount numeric := p_cents / 100.0;
  left_to_refund numeric;
  refund_id uuid;
begin
  perform private.require_aal2_if_enrolled();
  if not private.is_admin(auth.uid()) then
    raise exception 'Only admins can refund purchases' using errcode = '42501';
  end if;
  select * into p from public.credit_purchases where id = p_purchase_id for update;
  if not found then
    raise exception 'Purchase not found' using errcode = 'P0002';
  end if;
  if p.status <> 'completed' then
    raise exception 'Only a completed purchase can be refunded' using errcode = '22023';
  end if;
  left_to_refund := private.refundable(p.id);
  if p_cents is null or p_cents < 1 then
    raise exception 'The refund must be at least $0.01' using errcode = '22023';
  end if;
  select r.id into refund_id from public.credit_refunds r
   where r.purchase_id = p.id and r.status = 'pending' and r.unknown_since is not null and r.amount = refund_amount
   order by r.created_at limit 1;
  if refund_id is not null then
    update public.credit_refunds set unknown_since = null, updated_at = now() where id = refund_id;
  elsif refund_amount > left_to_refund then
    raise exception 'At most $% of this purchase can be refunded', to_char(left_to_refund, 'FM9999999990.00') using errcode = '22023';
  else
    insert into public.credit_refunds (purchase_id, user_id, amount, kind, reason, requested_by)
    values (p.id, p.user_id, refund_amount, 'refund', nullif(btrim(p_reason), ''), auth.uid())
    returning id into refund_id;
  end if;
  perform private.record_admin_action('purchase.refund', 'user', p.user_id::text,
    (select u.email from auth.users u where u.id = p.user_id),
    jsonb_build_object('purchase_id', p.id, 'refundable', to_char(left_to_refund, 'FM9999999990.00')),
    jsonb_build_object('refund_id', refund_id, 'amount', to_char(refund_amount, 'FM9999999990.00'), 'reason', nullif(btrim(p_reason), '')));
  return jsonb_build_object('refund_id', refund_id, 'provider', p.provider, 'order_id', p.provider_order_id,
                            'capture_id', p.provider_capture_id, 'user_id', p.user_id);
end
$$;
revoke all on function private.begin_refund(uuid, bigint, text) from public, anon, authenticated, service_role;
grant execute on function private.begin_refund(uuid, bigint, text) to authenticated;

-- The provider refused an admin's refund: it no longer counts against the purchase, and the audit
-- log, which recorded the request, records the refusal beside it, in the admin's name.
create function private.fail_refund(p_refund_id uuid, p_failure text) returns void
language plpgsql security definer set search_path = ''
as $$
declare
  r public.credit_refunds;
begin
  update public.credit_refunds set status = 'failed', failure = left(p_failure, 500), unknown_since = null, updated_at = now()
   where id = p_refund_id and status = 'pending'
  returning * into r;
  if found then
    perform private.record_admin_action('purchase.refund_failed', 'user', r.user_id::text,
      (select u.email from auth.users u where u.id = r.user_id), null,
      jsonb_build_object('refund_id', r.id, 'amount', to_char(r.amount, 'FM9999999990.00'), 'failure', r.failure),
      (select u.email from auth.users u where u.id = r.requested_by));
  end if;
end
$$;
revoke all on function private.fail_refund(uuid, text) from public, anon, authenticated, service_role;

-- The provider did not answer an admin's refund: it may have been made. It stays pending (its
-- amount reserved); the provider's webhook books it, or a retry of the same amount asks again.
create function private.refund_outcome_unknown(p_refund_id uuid, p_failure text) returns void
language sql security definer set search_path = ''
as $$
  update public.credit_refunds set unknown_since = now(), failure = left(p_failure, 500), updated_at = now()
   where id = p_refund_id and status = 'pending'
$$;
revoke all on function private.refund_outcome_unknown(uuid, text) from public, anon, authenticated, service_role;

/* The one place a refund becomes a debit. The purchase row is locked, so the admin's call, the
   provider's webhook and its duplicates book one after the other; the provider's refund id is
   unique, so only the first books. `p_refund_id` is ours when we asked for the refund (the
   provider echoes it back as custom_id); otherwise the provider refunded or reversed on its own. */
create function private.book_refund(
  p_purchase_id uuid, p_refund_id uuid, p_provider_refund_id text, p_cents bigint, p_kind text, p_seller jsonb
) returns jsonb
language plpgsql security definer set search_path = ''
as $$
declare
  p public.credit_purchases;
  r public.credit_refunds;
  receipt text;
  note text;
begin
  if p_kind is null or p_kind not in ('refund', 'reversal') then
    raise exception 'A refund is booked as refund or reversal';
  end if;
  if p_provider_refund_id is null or p_cents is null or p_cents < 1 then
    raise exception 'A refund needs the provider''s id and an amount';
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
  if r.id is not null then
    if r.status = 'completed' then
      return jsonb_build_object('outcome', 'already', 'refund_id', r.id, 'user_id', r.user_id);
    end if;
    update public.credit_refunds
       set status = 'completed', provider_refund_id = p_provider_refund_id, amount = p_cents / 100.0, failure = null, unknown_since = null,
           updated_at = now()
     where id = r.id
    returning * into r;
  else
    insert into public.credit_refunds (purchase_id, user_id, amount, kind, status, provider_refund_id)
    values (p.id, p.user_id, p_cents / 100.0, p_kind, 'completed', p_provider_refund_id)
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
revoke all on function private.book_refund(uuid, uuid, text, bigint, text, jsonb) from public, anon, authenticated, service_role;

-- ---------------------------------------------------------------- what admins and owners read

-- Purchase rows as before, with the receipt, what was refunded, what is left to refund (less
-- refunds still pending at the provider), and a refund the provider did not answer, to ask again.
drop function public.admin_user_purchases(uuid, integer, integer);
create function public.admin_user_purchases(p_user_id uuid, p_limit integer default 50, p_offset integer default 0)
returns table (
  id uuid, amount numeric, status text, provider text, provider_order_id text, created_at timestamptz, updated_at timestamptz,
  receipt_number text, refunded numeric, refundable numeric, unanswered_refund numeric, total_count bigint
)
language plpgsql stable security definer set search_path = ''
as $$
begin
  perform private.require_aal2_if_enrolled();
  if not private.is_admin(auth.uid()) then
    raise exception 'Only admins can manage users' using errcode = '42501';
  end if;
  if p_limit is null or p_limit < 1 or p_limit > 200 or p_offset is null or p_offset < 0 then
    raise exception 'p_limit must be 1 to 200 and p_offset at least 0';
  end if;
  return query
    select cp.id, cp.amount, cp.status, cp.provider, cp.provider_order_id, cp.created_at, cp.updated_at,
           (select d.number from public.billing_documents d where d.purchase_id = cp.id and d.kind = 'receipt'),
           coalesce((select sum(r.amount) from public.credit_refunds r where r.purchase_id = cp.id and r.status = 'completed'), 0),
           case when cp.status = 'completed' then private.refundable(cp.id) else 0 end,
           (select r.amount from public.credit_refunds r
             where r.purchase_id = cp.id and r.status = 'pending' and r.unknown_since is not null order by r.created_at limit 1),
           count(*) over ()
      from public.credit_purchases cp
     where cp.user_id = p_user_id
     order by cp.created_at desc, cp.id
     limit p_limit offset p_offset;
end
$$;
revoke all on function public.admin_user_purchases(uuid, integer, integer) from public, anon;
grant execute on function public.admin_user_purchases(uuid, integer, integer) to authenticated;

-- The admin's user list as before (migration 0016), with the balance: a negative one is flagged.
drop function public.get_user_stats(text, integer, integer);
create function public.get_user_stats(p_search text default null, p_limit integer default 50, p_offset integer default 0)
returns table (
  user_id uuid, email text, full_name text, active_services_count integer,
  last_sign_in_at timestamptz, created_at timestamptz, total_count integer, balance numeric
)
language plpgsql stable security definer set search_path = ''
as $$
#variable_conflict use_column
declare
  pattern text;
  total integer;
begin
  perform private.require_aal2_if_enrolled();
  if not private.is_admin(auth.uid()) then
    raise exception 'Only admins can list users' using errcode = '42501';
  end if;
  if p_limit is null or p_limit < 1 or p_limit > 500 or p_offset is null or p_offset < 0 then
    raise exception 'p_limit must be 1 to 500 and p_offset at least 0';
  end if;
  if coalesce(p_search, '') <> '' then
    pattern := '%' || replace(replace(replace(p_search, '\', '\\'), '%', '\%'), '_', '\_') || '%';
    select count(*) into total from auth.users u where u.deleted_at is null and u.email ilike pattern;
  else
    select c.n into total from private.user_count c;
  end if;
  -- The page first (limit over the index, no search), then its names and counts: one row each.
  return query
    select p.id, p.email::text, pr.full_name,
           (select count(*)::int from private.services s
             where s.user_id = p.id and s.state in ('installing', 'active')),
           p.last_sign_in_at, p.created_at, total,
           coalesce((select c.balance from public.user_credits c where c.user_id = p.id), 0)
      from (select u.id, u.email, u.last_sign_in_at, u.created_at
              from auth.users u
             where u.deleted_at is null and (pattern is null or u.email ilike pattern)
             order by u.created_at desc, u.id
             limit p_limit offset p_offset) p
      left join public.profiles pr on pr.id = p.id
     order by p.created_at desc, p.id;
end
$$;
revoke all on function public.get_user_stats(text, integer, integer) from public, anon;
grant execute on function public.get_user_stats(text, integer, integer) to authenticated;
