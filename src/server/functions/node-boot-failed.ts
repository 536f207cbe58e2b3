import type { Context } from 'hono';
import type { AppDeps } from '../deps';
import { clientIp } from '../http/client-ip';
import { TOKEN_PATTERN, tokenHash } from '../provisioning/machines/machine-tokens';
import { BOOTSTRAP_REFUSED } from './agent-token';
import { fail, jsonBody, overLimit } from './function-response';

/** A server reports its boot's stop once; more calls than this from one address are a script. */
const LIMIT = { max: 20, windowSeconds: 60 };

/** Control characters: the reason is one line of the boot script's log. */
const CONTROL = /\p{Cc}/gu;

/**
 * node-boot-failed, body { token, reason }: a new server's boot script stopped before its agent
 * could claim the key (the EULA not accepted, a download that is not what its SHA-256 says), and
 * says why with its one-time token, so that the install fails with that reason at once. The token
 * must still be claimable; it stays so, and the first reason is kept.
 */
export async function nodeBootFailed(deps: AppDeps, c: Context) {
  const limited = await overLimit(
    deps,
    c,
    `node-boot-failed:ip:${clientIp(c, deps.config.trustProxy)}`,
    LIMIT,
    (wait) => `Too many requests. Please try again in ${wait} seconds.`,
  );
  if (limited) return limited;
  const read = await jsonBody(c);
  if ('error' in read) return fail(c, 400, read.error);
  const { token, reason } = read.body;
  if (typeof token !== 'string' || !TOKEN_PATTERN.test(token)) return fail(c, 401, BOOTSTRAP_REFUSED);
  const line = typeof reason === 'string' ? reason.replace(CONTROL, ' ').trim() : '';
  if (line === '' || line.length > 500) return fail(c, 400, 'reason must be one line of 1 to 500 characters');
  const { rows } = await deps.db.query<{ service_id: string }>(
    `update private.machines m set boot_error = coalesce(m.boot_error, $2)
       from private.services s
      where m.bootstrap_token_hash = $1 and m.bootstrap_claimed_at is null and m.bootstrap_expires_at > now()
        and s.id = m.service_id and s.state not in ('deleted', 'deleting', 'failed')
      returning m.service_id`,
    [tokenHash(token), line],
  );
  if (!rows[0]) return fail(c, 401, BOOTSTRAP_REFUSED);
  deps.logger.warn('machine boot stopped', { service: rows[0].service_id, reason: line });
  return c.json({});
}
