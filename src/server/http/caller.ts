import type { Context } from 'hono';
import { sessionExists } from '../auth/sessions';
import { isUuid } from '../../shared/validation';
import { isDbError, type Queryable } from '../db/database';
import type { DbRole } from '../db/with-claims';
import { JwtError, verifyJwt, type JwtClaims, type Keys } from '../auth/tokens';

export type Caller = { role: DbRole; claims: JwtClaims; userId: string | undefined };

const ROLES: readonly DbRole[] = ['anon', 'authenticated', 'service_role'];

/** Why the caller's bearer token was refused: PostgREST answers each with its own code. */
export class CallerError extends Error {
  constructor(
    message: string,
    readonly code: 'PGRST301' | 'PGRST303' | 'role',
  ) {
    super(message);
    this.name = 'CallerError';
  }
}

/**
 * Who is calling, as PostgREST decides it (supabase-wire §4.5): no bearer → anon; a verified
 * JWT → the role in its `role` claim (anon when absent). Throws CallerError for a bad token.
 */
export function getCaller(c: Context, keys: Keys): Promise<Caller> {
  // Once per request: the database's fair share asks before the route does (http/share-by-caller.ts).
  let caller = callers.get(c);
  if (!caller) callers.set(c, (caller = verifyCaller(c, keys)));
  return caller;
}

const callers = new WeakMap<Context, Promise<Caller>>();

async function verifyCaller(c: Context, keys: Keys): Promise<Caller> {
  const header = c.req.header('authorization');
  if (!header) return { role: 'anon', claims: {}, userId: undefined };
  const m = /^Bearer\s+(.+)$/i.exec(header.trim());
  if (!m) throw new CallerError('Expected 3 parts in JWT; got 1', 'PGRST301');
  let claims: JwtClaims;
  try {
    claims = await verifyJwt(keys, m[1]!);
  } catch (e) {
    if (e instanceof JwtError) throw new CallerError(e.message, e.reason === 'malformed' || e.reason === 'signature' ? 'PGRST301' : 'PGRST303');
    throw e;
  }
  const role = (claims.role ?? 'anon') as DbRole;
  if (!ROLES.includes(role)) throw new CallerError(`role "${String(claims.role)}" does not exist`, 'role');
  return { role, claims, userId: typeof claims.sub === 'string' ? claims.sub : undefined };
}

/**
 * The caller when a valid token names a signed-in user whose session is still live; undefined for
 * a visitor, a refused token, or a session that has ended (signed out, password changed, deleted).
 */
export async function signedInCaller(c: Context, deps: { keys: Keys; db: Queryable }): Promise<(Caller & { userId: string }) | undefined> {
  let caller: Caller;
  try {
    caller = await getCaller(c, deps.keys);
  } catch (e) {
    if (!(e instanceof CallerError)) throw e;
    return undefined;
  }
  if (caller.role !== 'authenticated' || !caller.userId) return undefined;
  const sid = caller.claims.session_id;
  if (sid !== undefined && !(typeof sid === 'string' && isUuid(sid) && (await sessionExists(deps.db, sid)))) return undefined;
  return { ...caller, userId: caller.userId };
}

/** Whether a database error is auth.require_live_session refusing a token whose session has ended. */
export function isEndedSession(e: unknown): e is Error {
  return isDbError(e) && e.code === 'PT401' && e.hint === 'session_not_found';
}
