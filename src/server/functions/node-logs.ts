import type { Context } from 'hono';
import { LOG_LINES } from '../../shared/node-health';
import { isUuid } from '../../shared/validation';
import type { AppDeps } from '../deps';
import { recordEvent } from '../jobs/service-row';
import { provisionerFor } from '../provisioning/create-provisioner';
import { redactLogs } from '../provisioning/redact-logs';
import { fail, jsonBody, overLimit } from './function-response';
import { signedInPastSecondFactor } from './second-factor';

/** Each read asks the engine: a person reads a few times a minute; more is a script. */
const LIMIT = { max: 30, windowSeconds: 60 };

/**
 * node-logs, body { service_id }: the node's last LOG_LINES lines, { lines }, for its owner or an
 * admin. Another user's service is "not found", as one that does not exist. The key is redacted
 * in every form it may be printed in (provisioning/redact-logs.ts) before a line leaves the
 * server. An admin's read is recorded on the service's log, which its owner sees.
 */
export async function nodeLogs(deps: AppDeps, c: Context) {
  const caller = await signedInPastSecondFactor(deps, c);
  if (caller instanceof Response) return caller;
  const read = await jsonBody(c);
  if ('error' in read) return fail(c, 400, read.error);
  const serviceId = read.body.service_id;
  if (typeof serviceId !== 'string') return fail(c, 400, 'service_id is required');
  if (!isUuid(serviceId)) return fail(c, 400, 'service_id must be a UUID');
  const limited = await overLimit(deps, c, `node-logs:user:${caller.userId}`, LIMIT, (wait) => `Too many log requests. Please try again in ${wait} seconds.`);
  if (limited) return limited;
  const { rows } = await deps.db.query<{ owner: boolean; key: string | null }>(
    `select s.user_id = $2 as owner, private.decrypt_with_either_key(s.api_key_encrypted) as key
       from private.services s
      where s.id = $1 and s.state <> 'deleted' and (s.user_id = $2 or private.is_admin($2))`,
    [serviceId, caller.userId],
  );
  const svc = rows[0];
  if (!svc) return fail(c, 404, 'Service not found');
  let lines: string[];
  try {
    const provisioner = await provisionerFor(deps);
    lines = await provisioner.logs(serviceId, LOG_LINES);
  } catch (e) {
    deps.logger.warn('node logs could not be read', { service: serviceId, error: e instanceof Error ? e.message : String(e) });
    return fail(c, 502, "The node's logs could not be read. Please try again in a minute.");
  }
  if (!svc.owner) await recordEvent(deps.db, serviceId, 'logs_read', { by: 'admin' });
  return c.json({ lines: redactLogs(lines.slice(-LOG_LINES), svc.key) });
}
