import type { Context } from 'hono';
import type { AppDeps } from '../deps';
import { agentOf } from './agent-token';
import { fail } from './function-response';

/**
 * node-key: a machine's agent fetches the customer's new key, once per change, after a heartbeat
 * answered "new-key". A second call before the next change has nothing to take.
 */
export async function nodeKey(deps: AppDeps, c: Context) {
  const agent = await agentOf(deps, c);
  if (agent instanceof Response) return agent;
  const { rowCount } = await deps.db.query('update private.machines set key_pending = false where service_id = $1 and key_pending', [agent.serviceId]);
  if (!rowCount) return fail(c, 409, 'No new key is waiting');
  deps.logger.info('machine key handed over', { service: agent.serviceId });
  return c.json({ api_key: agent.key });
}
