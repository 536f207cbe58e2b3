import type { Limit } from '../http/rate-limit';
import type { AppDeps } from '../deps';
import { provisionerFor } from './create-provisioner';
import { redactLogs } from './redact-logs';

/**
 * Each read asks the engine: a person reads a few times a minute, and a dialog that follows reads
 * every LOG_FOLLOW_SECONDS (12 a minute), so two followed at once still fit; more is a script.
 * Per user, across the dashboard and the API.
 */
export const LOG_READ_LIMIT: Limit = { max: 30, windowSeconds: 60 };
/** A read of more than LOG_LINES lines (Download) is up to five times the engine's work: a few a minute. */
export const LOG_DOWNLOAD_LIMIT: Limit = { max: 6, windowSeconds: 60 };
export const logReadKey = (userId: string) => `node-logs:user:${userId}`;
export const logDownloadKey = (userId: string) => `node-logs:download:user:${userId}`;

/**
 * The node's last `tail` lines, its key redacted in every form it may be printed in, or undefined
 * when the engine could not be read (logged). A driver's own bound is not trusted blindly: it is
 * asked for `tail` and cut to it.
 */
export async function readNodeLogs(
  deps: Pick<AppDeps, 'config' | 'db' | 'keys' | 'logger'>,
  serviceId: string,
  key: string | null,
  tail: number,
): Promise<string[] | undefined> {
  try {
    const provisioner = await provisionerFor(deps);
    return redactLogs((await provisioner.logs(serviceId, tail)).slice(-tail), key);
  } catch (e) {
    deps.logger.warn('node logs could not be read', { service: serviceId, error: e instanceof Error ? e.message : String(e) });
    return undefined;
  }
}
