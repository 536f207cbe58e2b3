import type { Context } from 'hono';
import { z } from 'zod';
import type { AppDeps } from '../deps';
import { readBodyText } from '../http/json-body';
import { heartbeatSecondsOf } from '../provisioning/machines/machine-tokens';
import { redactLogs } from '../provisioning/redact-logs';
import { agentOf } from './agent-token';
import { fail, invalid, jsonBody, overLimit } from './function-response';

/** Twice a heartbeat's bounds, and then some: anything larger is no agent of ours. */
const MAX_BODY_BYTES = 64 * 1024;

/** Three times what an agent sends at its period; more is a loop gone wrong, or not ours. */
const limitOf = (heartbeatSeconds: number) => ({ max: Math.max(10, Math.ceil((3 * 60) / heartbeatSeconds)), windowSeconds: 60 });

/** What an agent may report (docs/decisions/036): bounded, since it comes from a machine we do not control. */
const heartbeatSchema = z.object({
  state: z.enum(['starting', 'running', 'stopped', 'refused']),
  status: z.string().max(4096).default(''),
  logs: z.array(z.string().max(500)).max(50).default([]),
  error: z.string().max(500).optional(),
});

/**
 * node-heartbeat: a machine's agent reports its node's state, `gala-node status` and its last
 * lines; the answer carries what is waiting for it (a new key, restart, stop, start), each handed
 * out once. What it sends is stored with the key redacted, whatever the agent should have done.
 */
export async function nodeHeartbeat(deps: AppDeps, c: Context) {
  const agent = await agentOf(deps, c);
  if (agent instanceof Response) return agent;
  const limited = await overLimit(
    deps,
    c,
    `node-heartbeat:${agent.serviceId}`,
    limitOf(heartbeatSecondsOf(deps.config)),
    (wait) => `Too many heartbeats. Please try again in ${wait} seconds.`,
  );
  if (limited) return limited;
  // Within the API's own body limit; jsonBody then reads the same text again from Hono's cache.
  const text = await readBodyText(c);
  if (text !== undefined && Buffer.byteLength(text) > MAX_BODY_BYTES) return fail(c, 413, 'A heartbeat is at most 64 KiB');
  const read = await jsonBody(c);
  if ('error' in read) return fail(c, 400, read.error);
  const parsed = heartbeatSchema.safeParse(read.body);
  if (!parsed.success) return invalid(c, parsed.error);
  const beat = parsed.data;
  const [status = ''] = redactLogs([beat.status], agent.key);
  const logs = redactLogs(beat.logs, agent.key);
  const error = beat.error === undefined ? null : (redactLogs([beat.error], agent.key)[0] ?? null);
  const { rows } = await deps.db.query<{ commands: string[]; key_pending: boolean }>(
    `with before as (select service_id, commands, key_pending, agent_state, running_since, last_heartbeat_at
                       from private.machines where service_id = $1 for update)
     update private.machines m set
       agent_state = $2, agent_status = $3, agent_logs = $4, agent_error = $5, commands = '{}', last_heartbeat_at = now(),
       -- A run of reports counts as unbroken while none is missed twice over.
       running_since = case when $2 <> 'running' then null
                            when before.agent_state = 'running' and before.last_heartbeat_at > now() - make_interval(secs => $6) then before.running_since
                            else now() end
       from before where m.service_id = before.service_id
     returning before.commands, before.key_pending`,
    [agent.serviceId, beat.state, status, logs, error, heartbeatSecondsOf(deps.config) * 2],
  );
  const row = rows[0];
  if (!row) return fail(c, 401, 'This agent token is not valid');
  return c.json({ commands: [...(row.key_pending ? ['new-key'] : []), ...row.commands] });
}
