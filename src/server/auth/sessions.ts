import { createHash, randomBytes } from 'node:crypto';
import { messages } from '../../shared/validation';
import type { Database, Queryable } from '../db/database';
import type { AppDeps } from '../deps';
import { type AmrEntry, signAccessToken } from './access-token';
import { AuthError } from './auth-errors';
import { rememberAddress } from './known-addresses';
import { type LinkedRows, linkedRowsSql, loadUserJson, userJsonFromLinked } from './user-json';
import { findUserById, USER_COLUMNS, type UserRow } from './users';

/** Who is asking, kept on the session as GoTrue does. */
export type ClientInfo = { ip: string; userAgent: string | undefined };

export type SessionRow = { id: string; user_id: string; aal: string; amr: AmrEntry[]; not_after: Date | null };

/** The session body of supabase-wire §2.4. */
export type SessionBody = {
  access_token: string;
  token_type: 'bearer';
  expires_in: number;
  expires_at: number;
  refresh_token: string;
  user: Record<string, unknown>;
  weak_password?: { message: string; reasons: string[] } | null;
};

/** Refresh tokens are stored only as this hash, so a leaked table row cannot be replayed. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** An opaque, unguessable token (32 URL-safe characters, 192 bits). */
export function randomToken(): string {
  return randomBytes(24).toString('base64url');
}

/** Issues a refresh token of a session (a child of `parentHash` when rotating), returning it in clear. */
export async function insertRefreshToken(tx: Queryable, userId: string, sessionId: string, parentHash: string | null): Promise<string> {
  const token = randomToken();
  await tx.query(`insert into auth.refresh_tokens (token, user_id, session_id, parent) values ($1, $2, $3, $4)`, [
    hashToken(token),
    userId,
    sessionId,
    parentHash,
  ]);
  return token;
}

/**
 * The session body for a user and session row, with a fresh access token. `linked` are the
 * user's identities and factors when the caller's statement already read them.
 */
export async function sessionBody(deps: AppDeps, user: UserRow, session: SessionRow, refreshToken: string, linked?: LinkedRows): Promise<SessionBody> {
  const { token, exp } = await signAccessToken(deps.keys, deps.config.jwtExpiry, user, session);
  return {
    access_token: token,
    token_type: 'bearer',
    expires_in: deps.config.jwtExpiry,
    expires_at: exp,
    refresh_token: refreshToken,
    user: linked ? userJsonFromLinked(user, linked) : await loadUserJson(deps.db, user),
  };
}

/**
 * Signs a user in: a new auth.sessions row with its first refresh token, last_sign_in_at stamped,
 * and the session body. `method` becomes the session's amr (`password`, or `otp` for a link).
 */
export async function startSession(deps: AppDeps, userId: string, method: 'password' | 'otp', client: ClientInfo): Promise<SessionBody> {
  const { user, session, refreshToken } = await deps.db.transaction(async (tx) => {
    const amr: AmrEntry[] = [{ method, timestamp: Math.floor(Date.now() / 1000) }];
    const { rows } = await tx.query<SessionRow>(
      `insert into auth.sessions (user_id, amr, ip, user_agent, refreshed_at) values ($1, $2::jsonb, $3, $4, now())
       returning id, user_id, aal, amr, not_after`,
      [userId, JSON.stringify(amr), client.ip, client.userAgent ?? null],
    );
    const session = rows[0]!;
    const refreshToken = await insertRefreshToken(tx, userId, session.id, null);
    await rememberAddress(deps, tx, userId, client, { secondFactor: false });
    await tx.query(`update auth.users set last_sign_in_at = now(), updated_at = now() where id = $1`, [userId]);
    await tx.query(`update auth.identities set last_sign_in_at = now() where user_id = $1 and provider = 'email'`, [userId]);
    const user = await findUserById(tx, userId);
    if (!user) throw new AuthError(403, 'user_not_found', 'User not found');
    return { user, session, refreshToken };
  });
  return sessionBody(deps, user, session, refreshToken);
}

const refreshErrors = {
  notFound: () => new AuthError(400, 'refresh_token_not_found', 'Invalid Refresh Token: Refresh Token Not Found'),
  alreadyUsed: () => new AuthError(400, 'refresh_token_already_used', 'Invalid Refresh Token: Already Used'),
  banned: () => new AuthError(400, 'user_banned', `Invalid Refresh Token: ${messages.accountSuspended}`),
  expired: () => new AuthError(400, 'session_expired', 'Invalid Refresh Token: Session Expired'),
};

/**
 * The refresh grant's common case in one statement, which is its own transaction and the request's
 * only round trip (the full path below takes one per statement): a live token of a live session
 * of a user who may sign in is revoked, its child issued and the session touched, with the same
 * locks in the same order, and the user's identities and factors read for the body.
 * Anything else (unknown, revoked or reused token, banned or deleted user, expired session)
 * gives no row and is left to the full path, which tells which it is.
 */
export const ROTATE_LIVE_TOKEN = `
  with rt as (
    select t.id, t.token, t.user_id, t.session_id from auth.refresh_tokens t where t.token = $1 and not t.revoked for update
  ), s as (
    select s.id as s_id, s.aal as s_aal, s.amr as s_amr, s.not_after as s_not_after from auth.sessions s
     where s.id = (select session_id from rt) and coalesce(s.not_after >= now(), true) for update
  ), u as (
    select ${USER_COLUMNS} from auth.users
     where id = (select user_id from rt) and deleted_at is null and coalesce(banned_until <= now(), true)
  ), ok as (
    select rt.* from rt, s, u
  ), revoked as (
    update auth.refresh_tokens set revoked = true, updated_at = now() where id = (select id from ok)
  ), issued as (
    insert into auth.refresh_tokens (token, user_id, session_id, parent) select $2, user_id, session_id, token from ok
  ), touched as (
    update auth.sessions set refreshed_at = now(), updated_at = now(), ip = $3, user_agent = $4 where id = (select session_id from ok)
  )
  select u.*, s.*, ${linkedRowsSql('u.id')} from u, s, ok`;

type RotatedRow = UserRow & LinkedRows & { s_id: string; s_aal: string; s_amr: AmrEntry[]; s_not_after: Date | null };

type Rotated = { user: UserRow; session: SessionRow; next: string; linked: LinkedRows };

async function rotateLiveToken(db: Database, refreshToken: string, client: ClientInfo): Promise<Rotated | null> {
  const next = randomToken();
  const { rows } = await db.query<RotatedRow>(
    ROTATE_LIVE_TOKEN,
    [hashToken(refreshToken), hashToken(next), client.ip, client.userAgent ?? null],
    'rotate_live_token',
  );
  if (!rows[0]) return null;
  const { s_id, s_aal, s_amr, s_not_after, identities, factors, ...user } = rows[0];
  return { user, session: { id: s_id, user_id: user.id, aal: s_aal, amr: s_amr, not_after: s_not_after }, next, linked: { identities, factors } };
}

/**
 * The refresh-token grant with rotation. The used token is revoked and a child issued. A revoked
 * token used again within the reuse interval (tabs refreshing at once) still gets a new token of
 * the same session; used later, it is taken as theft: the whole session and every token of it go.
 */
export async function refreshSession(deps: AppDeps, refreshToken: string, client: ClientInfo): Promise<SessionBody> {
  const rotated = await rotateLiveToken(deps.db, refreshToken, client);
  if (rotated) return sessionBody(deps, rotated.user, rotated.session, rotated.next, rotated.linked);
  const outcome = await deps.db.transaction(async (tx) => {
    const { rows } = await tx.query<{ id: number; token: string; user_id: string; session_id: string; revoked: boolean; reusable: boolean }>(
      `select id, token, user_id, session_id, revoked, updated_at + make_interval(secs => $2) > now() as reusable
       from auth.refresh_tokens where token = $1 for update`,
      [hashToken(refreshToken), deps.config.refreshTokenReuseInterval],
    );
    const rt = rows[0];
    if (!rt) return { error: refreshErrors.notFound() };
    const user = await findUserById(tx, rt.user_id);
    if (!user) return { error: refreshErrors.notFound() };
    if (user.banned_until && user.banned_until > new Date()) return { error: refreshErrors.banned() };
    const { rows: sessions } = await tx.query<SessionRow & { expired: boolean }>(
      `select id, user_id, aal, amr, not_after, coalesce(not_after < now(), false) as expired
       from auth.sessions where id = $1 for update`,
      [rt.session_id],
    );
    const session = sessions[0];
    if (!session) return { error: new AuthError(400, 'session_not_found', 'Invalid Refresh Token: No Valid Session Found') };
    if (session.expired) return { error: refreshErrors.expired() };
    if (rt.revoked && !rt.reusable) {
      // Committed on purpose: the family is revoked even though this request fails.
      await tx.query(`delete from auth.sessions where id = $1`, [session.id]);
      return { error: refreshErrors.alreadyUsed() };
    }
    // The reuse window runs from the moment of revocation, so a reuse must not move it.
    await tx.query(`update auth.refresh_tokens set revoked = true, updated_at = now() where id = $1 and not revoked`, [rt.id]);
    const next = await insertRefreshToken(tx, user.id, session.id, rt.token);
    await tx.query(`update auth.sessions set refreshed_at = now(), updated_at = now(), ip = $2, user_agent = $3 where id = $1`, [
      session.id,
      client.ip,
      client.userAgent ?? null,
    ]);
    return { user, session, next };
  });
  if ('error' in outcome) throw outcome.error;
  return sessionBody(deps, outcome.user, outcome.session, outcome.next);
}

export type LogoutScope = 'global' | 'local' | 'others';

/** Ends sessions (their refresh tokens go with them): all of the user's, this one, or all others. */
export async function endSessions(db: Database | Queryable, userId: string, sessionId: string | null, scope: LogoutScope): Promise<void> {
  if (scope === 'local' && sessionId) {
    await db.query(`delete from auth.sessions where id = $1 and user_id = $2`, [sessionId, userId]);
  } else if (scope === 'others' && sessionId) {
    await db.query(`delete from auth.sessions where user_id = $1 and id <> $2`, [userId, sessionId]);
  } else {
    await db.query(`delete from auth.sessions where user_id = $1`, [userId]);
  }
}

/** Whether a session still exists (it is gone after logout or a detected token theft). */
export async function sessionExists(db: Queryable, sessionId: string): Promise<boolean> {
  const { rowCount } = await db.query(`select 1 from auth.sessions where id = $1`, [sessionId]);
  return rowCount > 0;
}
