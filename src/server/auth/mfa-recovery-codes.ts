import { createHash, randomInt, timingSafeEqual } from 'node:crypto';
import { RECOVERY_CODE_COUNT } from '../../shared/constants';
import type { Queryable } from '../db/database';
import type { AppDeps } from '../deps';
import { AuthError, validationFailed } from './auth-errors';
import type { Authenticated } from './authenticate';
import { raiseToAal2, reissueRefreshToken, sessionAal, sessionOf } from './mfa';
import { queueSecurityMail } from './security-mail';
import { type ClientInfo, sessionBody, type SessionBody } from './sessions';
import { findUserById } from './users';

// No 0/o, 1/i/l: a code is read off paper and typed by hand.
const ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789';
const GROUPS = 4;
const GROUP_LENGTH = 4;

const invalidCode = () => new AuthError(422, 'mfa_verification_failed', 'Invalid recovery code entered');

/** A code as shown: four groups of four characters, about 79 random bits. */
function newCode(): string {
  const groups = Array.from({ length: GROUPS }, () => Array.from({ length: GROUP_LENGTH }, () => ALPHABET[randomInt(ALPHABET.length)]).join(''));
  return groups.join('-');
}

/** What the user typed, in the form that is hashed: lower case, without spaces or dashes. */
function normalise(code: string): string {
  return code.toLowerCase().replace(/[\s-]/g, '');
}

/**
 * A plain SHA-256 is enough here, unlike for passwords: each code is ~79 random bits, so no
 * stretching is needed to make a stolen hash useless. The user id in the input keeps one user's
 * code from ever matching another's.
 */
function hashCode(userId: string, code: string): Buffer {
  return createHash('sha256')
    .update(`${userId}:${normalise(code)}`)
    .digest();
}

async function hasVerifiedFactor(db: Queryable, userId: string): Promise<boolean> {
  const { rowCount } = await db.query(`select 1 from auth.mfa_factors where user_id = $1 and status = 'verified'`, [userId]);
  return rowCount > 0;
}

/** How many unused recovery codes the caller has left. */
export async function remainingRecoveryCodes(db: Queryable, userId: string): Promise<{ remaining: number }> {
  const { rows } = await db.query<{ n: number }>(`select count(*)::int as n from auth.mfa_recovery_codes where user_id = $1 and used_at is null`, [userId]);
  return { remaining: rows[0]?.n ?? 0 };
}

/**
 * POST /factors/recovery-codes: ten new codes, in clear this once, replacing every earlier code.
 * Needs a verified factor and an aal2 session, so a stolen password alone cannot mint them.
 */
export async function regenerateRecoveryCodes(deps: AppDeps, who: Authenticated): Promise<{ codes: string[] }> {
  const sessionId = sessionOf(who);
  const userId = who.user.id;
  const codes = Array.from({ length: RECOVERY_CODE_COUNT }, newCode);
  await deps.db.transaction(async (tx) => {
    // One regeneration at a time per user, so two cannot leave twenty codes.
    await tx.query(`select 1 from auth.users where id = $1 for update`, [userId]);
    if (!(await hasVerifiedFactor(tx, userId))) {
      throw new AuthError(422, 'mfa_factor_not_found', 'Set up an authenticator app before creating recovery codes');
    }
    if ((await sessionAal(tx, sessionId)) !== 'aal2') throw new AuthError(403, 'insufficient_aal', 'AAL2 required to create recovery codes');
    await tx.query(`delete from auth.mfa_recovery_codes where user_id = $1`, [userId]);
    await tx.query(`insert into auth.mfa_recovery_codes (user_id, code_hash) select $1, unnest($2::text[])`, [
      userId,
      codes.map((c) => hashCode(userId, c).toString('hex')),
    ]);
  });
  return { codes };
}

/**
 * POST /factors/recovery: the second sign-in step with a recovery code instead of the app. A
 * right, unused code of the caller's is marked used and raises the caller's session to aal2
 * with `recovery` first in its amr; the answer is a new session body, as a TOTP verify gives.
 */
export async function redeemRecoveryCode(deps: AppDeps, who: Authenticated, code: string | undefined, client: ClientInfo): Promise<SessionBody> {
  const sessionId = sessionOf(who);
  const userId = who.user.id;
  if (!code?.trim()) throw validationFailed('Code needs to be non-empty');
  const typed = hashCode(userId, code);
  const outcome = await deps.db.transaction(async (tx) => {
    // Locked so that the same code sent twice at once is accepted once.
    const { rows } = await tx.query<{ id: string; code_hash: string }>(
      `select id, code_hash from auth.mfa_recovery_codes where user_id = $1 and used_at is null order by id for update`,
      [userId],
    );
    // Every unused code is compared in full, in constant time, so timing tells nothing.
    let match: string | null = null;
    for (const row of rows) {
      if (timingSafeEqual(Buffer.from(row.code_hash, 'hex'), typed)) match = row.id;
    }
    if (match === null || !(await hasVerifiedFactor(tx, userId))) return { error: invalidCode() };
    await tx.query(`update auth.mfa_recovery_codes set used_at = now() where id = $1`, [match]);
    await queueSecurityMail(deps, tx, userId, 'recovery-code-used', client);
    const session = await raiseToAal2(tx, sessionId, null, 'recovery');
    if (!session) return { error: new AuthError(403, 'session_not_found', 'Session from session_id claim in JWT does not exist') };
    // As a TOTP verify: the user's other sessions still at aal1 end.
    await tx.query(`delete from auth.sessions where user_id = $1 and aal = 'aal1'`, [userId]);
    const refreshToken = await reissueRefreshToken(tx, userId, sessionId);
    const user = await findUserById(tx, userId);
    if (!user) return { error: new AuthError(403, 'user_not_found', 'User not found') };
    return { user, session, refreshToken };
  });
  if ('error' in outcome) throw outcome.error;
  return sessionBody(deps, outcome.user, outcome.session, outcome.refreshToken);
}
