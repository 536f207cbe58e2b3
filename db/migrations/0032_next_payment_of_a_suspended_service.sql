-- The overview's Next Payment (0022) looked at active services only: a customer whose service was
-- suspended for want of credit read "No scheduled payments" while a payment was due now. A
-- suspended service's missed renewal comes first, marked, so the card can say what a top-up does.
drop function public.get_next_payment();
create function public.get_next_payment()
returns table (service_id uuid, service_name text, renews_at timestamptz, amount numeric, suspended boolean)
language plpgsql stable security definer set search_path = ''
as $$
#variable_conflict use_column
begin
  perform private.require_aal2_if_enrolled();
  if auth.uid() is null then
    raise exception 'You must be logged in' using errcode = '42501';
  end if;
  return query
    select s.id, s.name, s.renews_at, p.price, s.state = 'suspended'
      from private.services s join public.products p on p.id = s.product_id
     where s.user_id = auth.uid() and s.state in ('active', 'suspended') and s.renews_at is not null
       and p.renew_interval is not null and p.price > 0
     order by s.state = 'suspended' desc, s.renews_at, s.created_at
     limit 1;
end
$$;
revoke all on function public.get_next_payment() from public, anon;
grant execute on function public.get_next_payment() to authenticated;
