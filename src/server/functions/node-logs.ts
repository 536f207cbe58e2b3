import type { Context } from 'hono';
import { LOG_LINES } from '../../shared/node-health';
import { LOG_FOLLOW_MINUTES, LOG_TAIL_MAX, logLineTime, nodeLogsMessages, parseSince } from '../../shared/node-logs';
import { isUuid, messages } from '../../shared/validation';
import type { AppDeps } from '../deps';
import { LOG_DOWNLOAD_LIMIT, LOG_READ_LIMIT, logDownloadKey, logReadKey, readNodeLogs } from '../provisioning/read-node-logs';
import { fail, jsonBody, overLimit } from './function-response';
import { signedInPastSecondFactor } from './second-factor';

type Read = { serviceId: string; tail: number; since: number | undefined };

/** The body's fields, or the message of the 400 for the first that is wrong. */
function readBody(body: Record<string, unknown>): Read | string {
  const { service_id: serviceId, tail = LOG_LINES, since } = body;
  if (typeof serviceId !== 'string') return 'service_id is required';
  if (!isUuid(serviceId)) return 'service_id must be a UUID';
  if (typeof tail !== 'number' || !Number.isInteger(tail) || tail < 1 || tail > LOG_TAIL_MAX) return nodeLogsMessages.tail;
  if (since === undefined) return { serviceId, tail, since: undefined };
  const at = typeof since === 'string' ? parseSince(since) : undefined;
  return at === undefined ? nodeLogsMessages.since : { serviceId, tail, since: at };
}

/**
 * The lines written at or after `since`; a line without a time of its own belongs to the line
 * before it, and lines before the first time are older than any `since`. At or after, not after:
 * two lines may share a time (the agent's are to the second), and the caller, which has the first,
 * drops what it has. `gap` when the tail may not reach back to `since`: it starts later and is full.
 */
function linesSince(lines: string[], since: number, tail: number): { lines: string[]; gap: boolean } {
  let at: number | undefined;
  const times = lines.map((line) => (at = logLineTime(line) ?? at));
  const first = times.findIndex((t) => t !== undefined && t >= since);
  if (first < 0) return { lines: [], gap: false };
  return { lines: lines.slice(first), gap: first === 0 && lines.length >= tail && times[0]! > since };
}

/**
 * node-logs, body { service_id, tail?, since? }: the node's last `tail` lines (LOG_LINES unless
 * asked, at most LOG_TAIL_MAX), { lines }, for its owner or an admin; with `since` (an RFC 3339
 * time, the dialog's last line's when it follows), only those written at or after it, and `gap`
 * when more were written in between than the tail holds. Another user's service is "not found",
 * as one that does not exist. The key is redacted in every form it may be printed in
 * (provisioning/redact-logs.ts) before a line leaves the server. An admin's reading is recorded
 * on the service's log, which its owner sees, once per LOG_FOLLOW_MINUTES: one following the
 * node is one reading, not one event every few seconds. A refused body counts against no limit.
 */
export async function nodeLogs(deps: AppDeps, c: Context) {
  const caller = await signedInPastSecondFactor(deps, c);
  if (caller instanceof Response) return caller;
  const body = await jsonBody(c);
  if ('error' in body) return fail(c, 400, body.error);
  const read = readBody(body.body);
  if (typeof read === 'string') return fail(c, 400, read);
  const { serviceId, tail, since } = read;
  const limited =
    (await overLimit(deps, c, logReadKey(caller.userId), LOG_READ_LIMIT, nodeLogsMessages.tooManyReads)) ??
    (tail > LOG_LINES ? await overLimit(deps, c, logDownloadKey(caller.userId), LOG_DOWNLOAD_LIMIT, nodeLogsMessages.tooManyDownloads) : undefined);
  if (limited) return limited;
  const { rows } = await deps.db.query<{ owner: boolean; key: string | null }>(
    `select s.user_id = $2 as owner, private.decrypt_with_either_key(s.api_key_encrypted) as key
       from private.services s
      where s.id = $1 and s.state <> 'deleted' and (s.user_id = $2 or private.is_admin($2))`,
    [serviceId, caller.userId],
  );
  const svc = rows[0];
  if (!svc) return fail(c, 404, messages.serviceNotFound);
  const lines = await readNodeLogs(deps, serviceId, svc.key, tail);
  if (!lines) return fail(c, 502, nodeLogsMessages.unreadable);
  if (!svc.owner) {
    await deps.db.query(
      `select private.record_service_event($1, 'logs_read', '{"by":"admin"}'::jsonb)
        where not exists (select 1 from public.service_events
                           where service_id = $1 and event = 'logs_read' and created_at > now() - make_interval(mins => $2))`,
      [serviceId, LOG_FOLLOW_MINUTES],
    );
  }
  if (since === undefined) return c.json({ lines });
  return c.json(linesSince(lines, since, tail));
}
