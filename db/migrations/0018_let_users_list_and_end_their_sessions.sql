-- A customer's own signed-in devices (Settings → Security): list them and end one. auth.sessions
-- stays unreadable through the API roles; these two read only the caller's rows, and only what a
-- device list shows, never a refresh token. Ending a session deletes its row; its refresh tokens
-- go with it (on delete cascade), so it can no longer refresh, and the API refuses its tokens.
-- Like everything else of an account with a verified second factor, both need an aal2 session
-- (private.require_aal2_if_enrolled, 0016).

create function public.list_own_sessions()
returns table (id uuid, created_at timestamptz, last_active_at timestamptz, ip text, user_agent text, aal text, is_current boolean)
language plpgsql stable security definer set search_path = ''
as $$
#variable_conflict use_column
declare
  uid uuid := auth.uid();
  current_id text := coalesce(auth.jwt() ->> 'session_id', '');
begin
  perform private.require_aal2_if_enrolled();
  if uid is null or not private.is_live_user(uid) then
    raise exception 'You must be logged in' using errcode = '42501';
  end if;
  -- refreshed_at is a timestamp without time zone on Supabase; both are UTC there.
  return query
    select s.id, s.created_at, greatest(s.updated_at, s.refreshed_at::timestamptz), s.ip::text, s.user_agent, s.aal::text,
           s.id::text = current_id
      from auth.sessions s
     where s.user_id = uid and coalesce(s.not_after > now(), true)
     order by s.id::text = current_id desc, greatest(s.updated_at, s.refreshed_at::timestamptz) desc, s.id;
end
$$;
revoke all on function public.list_own_sessions() from public, anon;
grant execute on function public.list_own_sessions() to authenticated;

create function public.end_own_session(p_session_id uuid) returns void
language plpgsql security definer set search_path = ''
as $$
declare
  uid uuid := auth.uid();
begin
  perform private.require_aal2_if_enrolled();
  if uid is null or not private.is_live_user(uid) then
    raise exception 'You must be logged in' using errcode = '42501';
  end if;
  -- Another user's session is "not found" as well: nothing tells whether it exists.
  delete from auth.sessions where id = p_session_id and user_id = uid;
  if not found then
    raise exception 'This session has already ended' using errcode = 'P0002';
  end if;
end
$$;
revoke all on function public.end_own_session(uuid) from public, anon;
grant execute on function public.end_own_session(uuid) to authenticated;
