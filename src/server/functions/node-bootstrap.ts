import type { Context } from 'hono';
import type { AppDeps } from '../deps';
import { clientIp } from '../http/client-ip';
import { heartbeatSecondsOf, newToken, TOKEN_PATTERN, tokenHash } from '../provisioning/machines/machine-tokens';
import { BOOTSTRAP_REFUSED } from './agent-token';
import { fail, jsonBody, overLimit } from './function-response';

/** A server claims its key once; more calls than this from one address are a script. */
const LIMIT = { max: 20, windowSeconds: 60 };

/**
 * node-bootstrap, body { token }: a new server's agent trades the one-time token of its user data
 * for the customer's key and a token of its own (docs/decisions/036). The token is good once,
 * within BOOTSTRAP_TTL_SECONDS of the server's making, for a service that may still run; every
 * other token, a replay included, gets one and the same 401.
 */
export async function nodeBootstrap(deps: AppDeps, c: Context) {
  const limited = await overLimit(
    deps,
    c,
    `node-bootstrap:ip:${clientIp(c, deps.config.trustProxy)}`,
    LIMIT,
    (wait) => `Too many requests. Please try again in ${wait} seconds.`,
  );
  if (limited) return limited;
  const read = await jsonBody(c);
  if ('error' in read) return fail(c, 400, read.error);
  const token = read.body.token;
  if (typeof token !== 'string' || !TOKEN_PATTERN.test(token)) return fail(c, 401, BOOTSTRAP_REFUSED);
  const agentToken = newToken();
  const { rows } = await deps.db.query<{ service_id: string; key: string; workload: string }>(
    `update private.machines m set bootstrap_claimed_at = now(), agent_token_hash = $2
       from private.services s join public.products p on p.id = s.product_id
      where m.bootstrap_token_hash = $1 and m.bootstrap_claimed_at is null and m.bootstrap_expires_at > now()
        and s.id = m.service_id and s.state not in ('deleted', 'deleting', 'failed') and p.machine_workload is not null
      returning m.service_id, private.decrypt_with_either_key(s.api_key_encrypted) as key, p.machine_workload as workload`,
    [tokenHash(token), tokenHash(agentToken)],
  );
  const claimed = rows[0];
  if (!claimed) return fail(c, 401, BOOTSTRAP_REFUSED);
  deps.logger.info('machine bootstrap claimed', { service: claimed.service_id });
  return c.json({
    agent_token: agentToken,
    api_key: claimed.key,
    workload: claimed.workload,
    name: `nh-${claimed.service_id.slice(0, 12)}`,
    heartbeat_seconds: heartbeatSecondsOf(deps.config),
  });
}
