import { createHash, randomBytes } from 'node:crypto';
import type { Queryable } from '../../db/database';

/** A bootstrap or agent token: 32 random bytes, base64url (43 characters). */
export const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

/** How long a server has to claim its key after it is made (issue 35: 1 hour). */
export const BOOTSTRAP_TTL_SECONDS = 3600;

/** How often an agent reports by default (MACHINE_HEARTBEAT_SECONDS; docs/decisions/036); two missed reports and its node is offline. */
export const HEARTBEAT_SECONDS = 30;

/** The period agents are told to report at. */
export const heartbeatSecondsOf = (config: { machines?: { heartbeatSeconds: number } | undefined }): number =>
  config.machines?.heartbeatSeconds ?? HEARTBEAT_SECONDS;

export const newToken = (): string => randomBytes(32).toString('base64url');

/** What the database keeps of a token: its SHA-256, enough for 256 random bits. */
export const tokenHash = (token: string): Buffer => createHash('sha256').update(token).digest();

/**
 * The service's machine row, made ready for a new server: a fresh bootstrap token (returned, for
 * the server's user data only) valid for BOOTSTRAP_TTL_SECONDS, and no agent yet. A server made
 * again (a retry, the reconciler) gets a new token, and the old server's agent is shut out.
 */
export async function prepareMachine(q: Queryable, serviceId: string, provider: string): Promise<string> {
  const token = newToken();
  await q.query(
    `insert into private.machines (service_id, provider, bootstrap_token_hash, bootstrap_expires_at)
     values ($1, $2, $3, now() + make_interval(secs => $4))
     on conflict (service_id) do update set
       provider = excluded.provider, server_id = null, location = null, ipv4 = null,
       bootstrap_token_hash = excluded.bootstrap_token_hash, bootstrap_expires_at = excluded.bootstrap_expires_at,
       bootstrap_claimed_at = null, boot_error = null, agent_token_hash = null, key_pending = false, commands = '{}',
       agent_state = null, agent_status = null, agent_logs = '{}', agent_error = null, running_since = null, last_heartbeat_at = null`,
    [serviceId, provider, tokenHash(token), BOOTSTRAP_TTL_SECONDS],
  );
  return token;
}
