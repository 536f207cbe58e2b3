-- Each job keeps the id of the request that enqueued it (X-Request-Id), so that the worker's log
-- lines for the job can be found beside the request's. The server puts the id it assigned in the
-- request's headers setting (request.headers, set for every API transaction); a job enqueued
-- elsewhere (the worker's own, a schedule) has none. p_request_id is for the server's own enqueue,
-- outside an API transaction.
alter table nodeharbor.jobs add column request_id text;

drop function nodeharbor.enqueue_job(text, jsonb, text, timestamptz, integer);
create function nodeharbor.enqueue_job(
  p_task text, p_payload jsonb default '{}', p_key text default null, p_run_at timestamptz default null,
  p_max_attempts integer default 5, p_request_id text default null
) returns bigint
language sql set search_path = ''
as $$
  insert into nodeharbor.jobs (task, payload, key, run_at, max_attempts, request_id)
  values (p_task, coalesce(p_payload, '{}'), p_key, coalesce(p_run_at, now()), coalesce(p_max_attempts, 5),
          -- Outside a transaction that set it, the setting reads '' (or nothing at all).
          coalesce(p_request_id, nullif(current_setting('request.headers', true), '')::jsonb ->> 'x-request-id'))
  on conflict (key) do nothing
  returning id
$$;
revoke all on function nodeharbor.enqueue_job(text, jsonb, text, timestamptz, integer, text) from public;
