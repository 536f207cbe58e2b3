import type { Context } from 'hono';
import { messages } from '../../shared/validation';
import { lacksRequiredAal2 } from '../auth/mfa-factors';
import type { AppDeps } from '../deps';
import { signedInCaller, type Caller } from '../http/caller';
import { fail } from './function-response';

/**
 * The database's rule (migration 0016) for the functions: once the caller has a verified factor,
 * a session that has not passed it may do nothing here. The refusal to send, or undefined.
 */
async function refuseWithoutSecondFactor(deps: AppDeps, c: Context, caller: Caller & { userId: string }) {
  const sessionId = typeof caller.claims.session_id === 'string' ? caller.claims.session_id : null;
  if (!(await lacksRequiredAal2(deps.db, caller.userId, sessionId))) return undefined;
  return fail(c, 403, messages.secondFactorRequired);
}

/**
 * The caller of a function for signed-in users: signed in (401 with `unauthenticated` otherwise)
 * and past the second factor they enrolled (403). The caller, or the answer to send.
 */
export async function signedInPastSecondFactor(
  deps: AppDeps,
  c: Context,
  unauthenticated = 'Authentication required',
): Promise<(Caller & { userId: string }) | Response> {
  const caller = await signedInCaller(c, deps);
  if (!caller) return fail(c, 401, unauthenticated);
  return (await refuseWithoutSecondFactor(deps, c, caller)) ?? caller;
}
