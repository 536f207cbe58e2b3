import type { Keys } from './tokens';
import { signJwt } from './tokens';
import type { UserRow } from './users';

export type AmrEntry = { method: string; timestamp: number };

/**
 * Signs an access token with exactly GoTrue's claims (supabase-wire §2.6): `aud` as a string,
 * `session_id` naming a row of auth.sessions, and the session's `amr` and `aal`. Its role is
 * always `authenticated`, whatever the user's row says.
 */
export async function signAccessToken(
  keys: Keys,
  expirySeconds: number,
  user: UserRow,
  session: { id: string; aal: string; amr: AmrEntry[] },
): Promise<{ token: string; iat: number; exp: number }> {
  const iat = Math.floor(Date.now() / 1000);
  const exp = iat + expirySeconds;
  const token = await signJwt(keys, {
    iss: keys.issuer,
    sub: user.id,
    aud: user.aud,
    exp,
    iat,
    email: user.email ?? '',
    phone: user.phone ?? '',
    app_metadata: user.raw_app_meta_data,
    user_metadata: user.raw_user_meta_data,
    // Never the row's: a role there (service_role, say) must not become the token's (issue 42). Migration 0038 keeps it authenticated too.
    role: 'authenticated',
    aal: session.aal,
    amr: session.amr,
    session_id: session.id,
    is_anonymous: user.is_anonymous,
  });
  return { token, iat, exp };
}
