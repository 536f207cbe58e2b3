-- Issue 20, item 2 (decision 022): receipts and credit notes as PDFs, downloaded by their owner
-- or an admin, and the receipt attached to the "payment received" mail.

-- One document for the billing-document function, read as the caller: its owner, or an admin,
-- gets the row; anyone else gets nothing, exactly as for a number that does not exist, so the
-- answer tells no one which numbers are taken. In private: only the server calls it, with the
-- caller's claims (withClaims), so it is no REST endpoint of its own.
create function private.billing_document(p_number text) returns setof public.billing_documents
language plpgsql stable security definer set search_path = ''
as $$
begin
  perform private.require_aal2_if_enrolled();
  return query
    select d.* from public.billing_documents d
     where d.number = p_number
       and auth.uid() is not null
       and (d.user_id = auth.uid() or private.is_admin(auth.uid()));
end
$$;
revoke all on function private.billing_document(text) from public, anon, service_role;
grant execute on function private.billing_document(text) to authenticated;

-- What a mail carries besides its text: a list of {filename, contentType, content (base64)}.
-- Kept with the mail, so a delivery retried by the job queue sends the same files.
alter table nodeharbor.outbox add column attachments jsonb
  check (attachments is null or jsonb_typeof(attachments) = 'array');

-- The admin's "Mail outbox" as in 0026, and the names of the files each mail carries (never their
-- content: a receipt is its recipient's to read).
drop function public.admin_mail_outbox(text, integer, integer);
create function public.admin_mail_outbox(p_to text default null, p_limit integer default 50, p_offset integer default 0)
returns table (
  id bigint, created_at timestamptz, to_address text, subject text, status text, error text, sent_at timestamptz,
  attempts integer, attachment_names text[], total_count bigint
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
    select o.id, o.created_at, o.to_address, o.subject, o.status, o.error, o.sent_at, o.attempts,
           (select array_agg(f.a ->> 'filename' order by f.n) from jsonb_array_elements(o.attachments) with ordinality f(a, n)),
           count(*) over ()
      from nodeharbor.outbox o
     where p_to is null or strpos(lower(o.to_address), lower(p_to)) > 0
     order by o.created_at desc, o.id desc
     limit p_limit offset p_offset;
end
$$;
revoke all on function public.admin_mail_outbox(text, integer, integer) from public, anon;
grant execute on function public.admin_mail_outbox(text, integer, integer) to authenticated;
