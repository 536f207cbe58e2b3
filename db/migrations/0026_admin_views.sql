-- Issue 19: what an operator read with the CLI, in the admin area: the contact form's messages
-- and the mail outbox. Admins only, at aal2 once they have a second factor, in bounded pages.

-- The admin area's "Contact messages": what visitors sent through the contact form, newest first.
create function public.admin_contact_messages(p_limit integer default 50, p_offset integer default 0)
returns table (id uuid, created_at timestamptz, name text, email text, topic text, message text, total_count bigint)
language plpgsql stable security definer set search_path = ''
as $$
begin
  perform private.require_aal2_if_enrolled();
  if not private.is_admin(auth.uid()) then
    raise exception 'Only admins can read contact messages' using errcode = '42501';
  end if;
  if p_limit is null or p_limit < 1 or p_limit > 200 or p_offset is null or p_offset < 0 then
    raise exception 'p_limit must be 1 to 200 and p_offset at least 0';
  end if;
  return query
    select m.id, m.created_at, m.name, m.email, m.topic, m.message, count(*) over ()
      from public.contact_messages m
     order by m.created_at desc, m.id desc
     limit p_limit offset p_offset;
end
$$;
revoke all on function public.admin_contact_messages(integer, integer) from public, anon;
grant execute on function public.admin_contact_messages(integer, integer) to authenticated;

-- The admin area's "Mail outbox": every mail the server sent or kept, newest first, optionally
-- those to one address (a case-insensitive substring). No bodies: a body holds what only its
-- recipient should read (a reset link is a key to the account), so it is read one mail at a time
-- by admin_read_mail, which records the reading.
create function public.admin_mail_outbox(p_to text default null, p_limit integer default 50, p_offset integer default 0)
returns table (
  id bigint, created_at timestamptz, to_address text, subject text, status text, error text, sent_at timestamptz,
  attempts integer, total_count bigint
)
language plpgsql stable security definer set search_path = ''
as $$
begin
  perform private.require_aal2_if_enrolled();
  if not private.is_admin(auth.uid()) then
    raise exception 'Only admins can read the mail outbox' using errcode = '42501';
  end if;
  if p_limit is null or p_limit < 1 or p_limit > 200 or p_offset is null or p_offset < 0 then
    raise exception 'p_limit must be 1 to 200 and p_offset at least 0';
  end if;
  if char_length(p_to) > 320 then
    raise exception 'A filter is at most 320 characters';
  end if;
  return query
    select o.id, o.created_at, o.to_address, o.subject, o.status, o.error, o.sent_at, o.attempts, count(*) over ()
      from nodeharbor.outbox o
     where p_to is null or strpos(lower(o.to_address), lower(p_to)) > 0
     order by o.created_at desc, o.id desc
     limit p_limit offset p_offset;
end
$$;
revoke all on function public.admin_mail_outbox(text, integer, integer) from public, anon;
grant execute on function public.admin_mail_outbox(text, integer, integer) to authenticated;

-- One mail's text body, for an admin, and a "mail.read" entry in the audit log naming the
-- recipient: whoever reads someone's reset link can be asked why. (The HTML body is the same
-- text dressed up, and is not handed to a browser that would have to render it safely.)
create function public.admin_read_mail(p_id bigint)
returns table (id bigint, created_at timestamptz, to_address text, subject text, status text, text_body text)
language plpgsql security definer set search_path = ''
as $$
declare
  m nodeharbor.outbox;
begin
  perform private.require_aal2_if_enrolled();
  if not private.is_admin(auth.uid()) then
    raise exception 'Only admins can read the mail outbox' using errcode = '42501';
  end if;
  select * into m from nodeharbor.outbox o where o.id = p_id;
  if m.id is null then
    raise exception 'No such mail' using errcode = 'PT404';
  end if;
  perform private.record_admin_action('mail.read', 'mail', m.id::text, m.to_address, null,
    jsonb_build_object('subject', m.subject));
  return query select m.id, m.created_at, m.to_address, m.subject, m.status, m.text_body;
end
$$;
revoke all on function public.admin_read_mail(bigint) from public, anon;
grant execute on function public.admin_read_mail(bigint) to authenticated;
