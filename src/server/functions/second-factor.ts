import type { Context } from 'hono';
import { messages } from '../../shared/validation';
import { lacksRequiredAal2 } from '../auth/mfa-factors';
import type { AppDeps } from '../deps';
import type { Caller } from '../http/caller';
import { fail } from './function-response';

/**
 * The database's rule (migration 0016) for the functions: once the caller has a verified factor,
 * a session that has not passed it may do nothing here. The refusal to send, or undefined.
 */
export async function refuseWithoutSecondFactor(deps: AppDeps, c: Context, caller: Caller & { userId: string }) {
  const sessionId = typeof caller.claims.session_id === 'string' ? caller.claims.session_id : null;
  if (!(await lacksRequiredAal2(deps.db, caller.userId, sessionId))) return undefined;
  return fail(c, 403, messages.secondFactorRequired);
}
