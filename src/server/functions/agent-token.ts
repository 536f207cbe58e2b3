import type { Context } from 'hono';
import type { AppDeps } from '../deps';
import { TOKEN_PATTERN, tokenHash } from '../provisioning/machines/machine-tokens';
import { fail } from './function-response';

/** The agent's own header: Authorization stays the Supabase client's. */
export const AGENT_TOKEN_HEADER = 'X-Agent-Token';

export type Agent = { serviceId: string; key: string };

/** The one answer to a bootstrap token that is unknown, expired, claimed, or malformed (node-bootstrap, node-boot-failed). */
export const BOOTSTRAP_REFUSED = 'This bootstrap token is not valid';

/**
 * The machine whose agent token the request carries, with its service's key (to redact what the
 * agent sends, or to hand over), or the 401 to answer. Only a claimed machine of a live service
 * has an agent token; an unknown one gets the same answer as a malformed one.
 */
export async function agentOf(deps: Pick<AppDeps, 'db'>, c: Context): Promise<Agent | Response> {
  const token = c.req.header(AGENT_TOKEN_HEADER) ?? '';
  if (TOKEN_PATTERN.test(token)) {
    const { rows } = await deps.db.query<{ service_id: string; key: string }>(
      `select m.service_id, private.decrypt_with_either_key(s.api_key_encrypted) as key
         from private.machines m join private.services s on s.id = m.service_id
        where m.agent_token_hash = $1 and s.state not in ('deleted', 'failed')`,
      [tokenHash(token)],
    );
    const row = rows[0];
    if (row) return { serviceId: row.service_id, key: row.key };
  }
  return fail(c, 401, 'This agent token is not valid');
}
