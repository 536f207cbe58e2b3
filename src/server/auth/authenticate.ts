import type { AppDeps } from '../deps';
import { AuthError, validationFailed } from './auth-errors';
import { sessionExists } from './sessions';
import { type JwtClaims, JwtError, verifyJwt } from './tokens';
import { findUserById, type UserRow } from './users';
import { isUuid } from '../../shared/validation';
import { API_TOKEN_PREFIX, apiTokenMessages } from '../../shared/api-tokens';

export type Authenticated = { user: UserRow; claims: JwtClaims; sessionId: string | null };

// golang-jwt's wording, which GoTrue puts after "invalid JWT: unable to parse or verify signature, ".
const jwtReasons: Record<Exclude<JwtError['reason'], 'audience'>, string> = {
  malformed: 'token is malformed',
  signature: 'token signature is invalid: signature is invalid',
  expired: 'token has invalid claims: token is expired',
  claims: 'token has invalid claims',
  issuer: 'token has invalid claims: token has invalid issuer',
};

/**
 * GoTrue's requireAuthentication (supabase-wire §3.7): a Bearer JWT signed by us, naming a live
 * user and, when it has a session_id, a session that still exists. Throws GoTrue's 401/403 errors.
 */
export async function authenticate(deps: AppDeps, authorization: string | undefined): Promise<Authenticated> {
  const match = /^[Bb]earer (\S+)$/.exec(authorization ?? '');
  if (!match) throw new AuthError(401, 'no_authorization', 'This endpoint requires a Bearer token');
  // Not a JWT, so GoTrue would answer 403 bad_jwt: said plainly instead, as not being signed in.
  if (match[1]!.startsWith(API_TOKEN_PREFIX)) throw new AuthError(401, 'no_authorization', apiTokenMessages.onlyOnApi);
  let claims: JwtClaims;
  try {
    claims = await verifyJwt(deps.keys, match[1]!);
  } catch (e) {
    if (!(e instanceof JwtError)) throw e;
    // GoTrue's handlers compare the audience after the token verified (api/user.go UserGet).
    if (e.reason === 'audience') throw validationFailed("Token audience doesn't match request audience");
    throw new AuthError(403, 'bad_jwt', `invalid JWT: unable to parse or verify signature, ${jwtReasons[e.reason]}`);
  }
  if (typeof claims.sub !== 'string' || claims.sub === '') throw new AuthError(403, 'bad_jwt', 'invalid claim: missing sub claim');
  if (!isUuid(claims.sub)) throw new AuthError(400, 'bad_jwt', 'invalid claim: sub claim must be a UUID');
  const user = await findUserById(deps.db, claims.sub);
  if (!user) throw new AuthError(403, 'user_not_found', 'User from sub claim in JWT does not exist');
  const sid = claims.session_id;
  if (sid === undefined || sid === '' || sid === '00000000-0000-0000-0000-000000000000') return { user, claims, sessionId: null };
  if (typeof sid !== 'string' || !isUuid(sid)) throw new AuthError(403, 'bad_jwt', 'invalid claim: session_id claim must be a UUID');
  if (!(await sessionExists(deps.db, sid))) {
    throw new AuthError(403, 'session_not_found', 'Session from session_id claim in JWT does not exist');
  }
  return { user, claims, sessionId: sid };
}
