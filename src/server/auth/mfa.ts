import { randomUUID } from 'node:crypto';
import type { Queryable } from '../db/database';
import { isDbError } from '../db/database';
import type { AppDeps } from '../deps';
import type { AmrEntry } from './access-token';
import { AuthError, badJson, validationFailed } from './auth-errors';
import type { Authenticated } from './authenticate';
import { rememberAddress } from './known-addresses';
import { FACTOR_COLUMNS, type FactorRow } from './mfa-factors';
import { decryptSecret, encryptSecret } from './mfa-secrets';
import { matchingStep, newTotp } from './mfa-totp';
import { queueSecurityMail } from './security-mail';
import { type ClientInfo, insertRefreshToken, sessionBody, type SessionBody, type SessionRow } from './sessions';
import { findUserById } from './users';
import { isUuid } from '../../shared/validation';

/** GoTrue's MFA defaults (GOTRUE_MFA_*). */
export const MFA_LIMITS = {
  challengeExpirySeconds: 300,
  /** An unverified factor never challenged is swept after this long. */
  factorExpirySeconds: 300,
  maxEnrolledFactors: 10,
  maxVerifiedFactors: 10,
};

export type EnrollInput = { factorType: string | undefined; friendlyName: string | undefined; issuer: string | undefined };

export type EnrollResponse = {
  id: string;
  type: 'totp';
  friendly_name: string;
  totp: { qr_code: string; secret: string; uri: string };
};

const tooManyFactors = () => new AuthError(422, 'too_many_enrolled_mfa_factors', 'Maximum number of verified factors reached, unenroll to continue');

/** The caller's session id; MFA acts on a session, so a token without one cannot use it. */
export function sessionOf(who: Authenticated): string {
  if (!who.sessionId) throw new AuthError(403, 'session_not_found', 'A valid session and a registered user are required to use MFA');
  return who.sessionId;
}

export async function sessionAal(db: Queryable, sessionId: string): Promise<string | undefined> {
  const { rows } = await db.query<{ aal: string }>(`select aal from auth.sessions where id = $1`, [sessionId]);
  return rows[0]?.aal;
}

/** How recent a code must be to remove a verified factor: a session left open is not enough to. */
const FRESH_SECOND_FACTOR_SECONDS = 5 * 60;
const FRESH_CODE_NEEDED = 'Enter a current code from your authenticator app, or a recovery code, to remove two-factor authentication';

/** The session's second factor (an app's code or a recovery code) was given within FRESH_SECOND_FACTOR_SECONDS. */
async function secondFactorIsFresh(db: Queryable, sessionId: string): Promise<boolean> {
  const { rows } = await db.query<{ fresh: boolean }>(
    `select exists (select 1 from auth.sessions s, jsonb_array_elements(s.amr) a
                     where s.id = $1 and a ->> 'method' in ('totp', 'recovery')
                       and (a ->> 'timestamp')::bigint >= extract(epoch from now()) - $2) as fresh`,
    [sessionId, FRESH_SECOND_FACTOR_SECONDS],
  );
  return rows[0]?.fresh === true;
}

/** GoTrue's loadFactor: the user's own factor, else 404 (another user's factor is "not found" too). */
export async function findOwnedFactor(db: Queryable, userId: string, rawId: string): Promise<FactorRow> {
  if (!isUuid(rawId)) throw new AuthError(404, 'validation_failed', 'factor_id must be an UUID');
  const { rows } = await db.query<FactorRow>(`select ${FACTOR_COLUMNS} from auth.mfa_factors where id = $1 and user_id = $2`, [rawId, userId]);
  if (!rows[0]) throw new AuthError(404, 'mfa_factor_not_found', 'Factor not found');
  return rows[0];
}

/**
 * POST /factors: a new unverified TOTP factor, its secret and QR code. Only `totp` is offered;
 * phone and WebAuthn answer as a GoTrue with those disabled does.
 */
export async function enrollFactor(deps: AppDeps, who: Authenticated, input: EnrollInput): Promise<EnrollResponse> {
  const sessionId = sessionOf(who);
  if (input.factorType === 'phone') throw new AuthError(422, 'mfa_phone_enroll_not_enabled', 'MFA enroll is disabled for Phone');
  if (input.factorType === 'webauthn') throw new AuthError(422, 'mfa_webauthn_enroll_not_enabled', 'MFA enroll is disabled for WebAuthn');
  if (input.factorType !== 'totp') throw validationFailed('factor_type needs to be totp, phone, or webauthn');
  const friendlyName = input.friendlyName ?? '';
  const issuer = input.issuer || new URL(deps.config.publicUrl).host;
  // Not limited by GoTrue; bounded here so the name fits its unique index and the URI its QR code.
  if ([...friendlyName].length > 255) throw validationFailed('friendly_name is too long (at most 255 characters)');
  if ([...issuer].length > 64) throw validationFailed('issuer is too long (at most 64 characters)');
  const { user } = who;
  const id = randomUUID();
  const totp = await newTotp(issuer, user.email ?? user.phone ?? '');
  const secret = encryptSecret(deps.encryptionKeys, id, totp.secret);
  try {
    await deps.db.transaction(async (tx) => {
      // One enrolment at a time per user, so the counts below cannot be raced past.
      await tx.query(`select 1 from auth.users where id = $1 for update`, [user.id]);
      await tx.query(
        `delete from auth.mfa_factors f where f.status <> 'verified' and f.created_at + make_interval(secs => $1) < now()
         and not exists (select 1 from auth.mfa_challenges c where c.factor_id = f.id)`,
        [MFA_LIMITS.factorExpirySeconds],
      );
      const { rows } = await tx.query<{ friendly_name: string | null; status: string }>(
        `select friendly_name, status from auth.mfa_factors where user_id = $1`,
        [user.id],
      );
      // As GoTrue, an absent name equals another absent name: a second unnamed factor conflicts.
      if (rows.some((f) => (f.friendly_name ?? '') === friendlyName)) throw nameConflict(friendlyName);
      const verified = rows.filter((f) => f.status === 'verified').length;
      if (rows.length >= MFA_LIMITS.maxEnrolledFactors || verified >= MFA_LIMITS.maxVerifiedFactors) throw tooManyFactors();
      if (verified > 0 && (await sessionAal(tx, sessionId)) !== 'aal2') {
        throw new AuthError(403, 'insufficient_aal', 'AAL2 required to enroll a new factor');
      }
      await tx.query(
        `insert into auth.mfa_factors (id, user_id, friendly_name, factor_type, status, secret)
         values ($1, $2, $3, 'totp', 'unverified', $4)`,
        [id, user.id, friendlyName, secret],
      );
    });
  } catch (e) {
    // The partial unique index on (friendly_name, user_id) caught a concurrent twin.
    if (isDbError(e) && e.code === '23505') throw nameConflict(friendlyName);
    throw e;
  }
  return { id, type: 'totp', friendly_name: friendlyName, totp: { qr_code: totp.qrCode, secret: totp.secret, uri: totp.uri } };
}

const nameConflict = (name: string) =>
  new AuthError(422, 'mfa_factor_name_conflict', `A factor with the friendly name ${JSON.stringify(name)} for this user already exists`);

/** POST /factors/:id/challenge: a challenge bound to the caller's IP, valid for 300 s. */
export async function challengeFactor(deps: AppDeps, who: Authenticated, factor: FactorRow, ip: string) {
  sessionOf(who);
  const { rows } = await deps.db.transaction(async (tx) => {
    await tx.query(`update auth.mfa_factors set last_challenged_at = now() where id = $1`, [factor.id]);
    return tx.query<{ id: string; expires_at: number }>(
      `insert into auth.mfa_challenges (factor_id, ip_address) values ($1, $2)
       returning id, floor(extract(epoch from created_at + make_interval(secs => $3)))::int as expires_at`,
      [factor.id, ip, MFA_LIMITS.challengeExpirySeconds],
    );
  });
  const challenge = rows[0]!;
  return { id: challenge.id, type: factor.factor_type, expires_at: challenge.expires_at };
}

export type VerifyInput = { challengeId: string | undefined; code: string | undefined };

type ChallengeRow = { id: string; verified_at: Date | null; ip_address: string; expired: boolean };

/**
 * POST /factors/:id/verify. A right code marks the factor verified, raises the caller's session
 * to aal2 with `totp` first in its amr, ends the user's other aal1 sessions, removes the user's
 * other unverified TOTP factors, and answers a new session body with a rotated refresh token.
 * A code is accepted once: its time step must be later than the last one this factor accepted.
 */
export async function verifyFactor(deps: AppDeps, who: Authenticated, factor: FactorRow, input: VerifyInput, client: ClientInfo): Promise<SessionBody> {
  const { ip } = client;
  const sessionId = sessionOf(who);
  if (input.challengeId !== undefined && !isUuid(input.challengeId)) throw badJson('challenge_id must be a UUID');
  if (!input.code) throw validationFailed('Code needs to be non-empty');
  const code = input.code;
  const outcome = await deps.db.transaction(async (tx) => {
    // Locked so that two requests with the same code cannot both be accepted.
    const { rows: factors } = await tx.query<{ secret: string | null; last_totp_step: number | null; status: string }>(
      `select secret, last_totp_step, status from auth.mfa_factors where id = $1 for update`,
      [factor.id],
    );
    const locked = factors[0];
    if (!locked) return { error: new AuthError(404, 'mfa_factor_not_found', 'Factor not found') };
    const { rows: challenges } = await tx.query<ChallengeRow>(
      `select id, verified_at, ip_address, created_at + make_interval(secs => $3) < now() as expired
       from auth.mfa_challenges where id = $1 and factor_id = $2 for update`,
      [input.challengeId ?? '00000000-0000-0000-0000-000000000000', factor.id, MFA_LIMITS.challengeExpirySeconds],
    );
    const challenge = challenges[0];
    if (!challenge) return { error: new AuthError(422, 'mfa_factor_not_found', 'MFA factor with the provided challenge ID not found') };
    if (challenge.verified_at || challenge.ip_address !== ip) {
      return { error: new AuthError(422, 'mfa_ip_address_mismatch', 'Challenge and verify IP addresses mismatch.') };
    }
    if (challenge.expired) {
      // Committed on purpose, as GoTrue: an expired challenge is deleted when it is presented.
      await tx.query(`delete from auth.mfa_challenges where id = $1`, [challenge.id]);
      return {
        error: new AuthError(
          422,
          'mfa_challenge_expired',
          `MFA challenge ${challenge.id} has expired, verify against another challenge or create a new challenge.`,
        ),
      };
    }
    const secret = locked.secret ? decryptSecret(deps.encryptionKeys, factor.id, locked.secret) : '';
    const step = matchingStep(secret, code);
    if (step === null || (locked.last_totp_step !== null && step <= locked.last_totp_step)) {
      return { error: new AuthError(422, 'mfa_verification_failed', 'Invalid TOTP code entered') };
    }
    await tx.query(`update auth.mfa_challenges set verified_at = now() where id = $1`, [challenge.id]);
    await tx.query(`update auth.mfa_factors set status = 'verified', last_totp_step = $2, updated_at = now() where id = $1`, [factor.id, step]);
    const session = await raiseToAal2(tx, sessionId, factor.id, 'totp');
    if (!session) return { error: new AuthError(403, 'session_not_found', 'Session from session_id claim in JWT does not exist') };
    await tx.query(`delete from auth.sessions where user_id = $1 and aal = 'aal1'`, [who.user.id]);
    await tx.query(`delete from auth.mfa_factors where user_id = $1 and status = 'unverified' and factor_type = $2`, [who.user.id, factor.factor_type]);
    const refreshToken = await reissueRefreshToken(tx, who.user.id, sessionId);
    await rememberAddress(deps, tx, who.user.id, client, { secondFactor: true });
    if (locked.status !== 'verified') await queueSecurityMail(deps, tx, who.user.id, 'factor-added', client);
    const user = await findUserById(tx, who.user.id);
    if (!user) return { error: new AuthError(403, 'user_not_found', 'User not found') };
    return { user, session, refreshToken };
  });
  if ('error' in outcome) throw outcome.error;
  return sessionBody(deps, outcome.user, outcome.session, outcome.refreshToken);
}

/**
 * Sets the session to aal2 through a factor (none for a recovery code); `method` moves to the
 * front of its amr, as GoTrue sorts newest first.
 */
export async function raiseToAal2(tx: Queryable, sessionId: string, factorId: string | null, method: 'totp' | 'recovery'): Promise<SessionRow | undefined> {
  const { rows } = await tx.query<SessionRow>(`select id, user_id, aal, amr, not_after from auth.sessions where id = $1 for update`, [sessionId]);
  if (!rows[0]) return undefined;
  const amr: AmrEntry[] = [{ method, timestamp: Math.floor(Date.now() / 1000) }, ...rows[0].amr.filter((a) => a.method !== method)];
  const { rows: updated } = await tx.query<SessionRow>(
    `update auth.sessions set aal = 'aal2', factor_id = $2, amr = $3::jsonb, updated_at = now() where id = $1
     returning id, user_id, aal, amr, not_after`,
    [sessionId, factorId, JSON.stringify(amr)],
  );
  return updated[0];
}

/** GoTrue's refresh-token swap: the session's live tokens are revoked and a child of the newest issued. */
export async function reissueRefreshToken(tx: Queryable, userId: string, sessionId: string): Promise<string> {
  const { rows } = await tx.query<{ token: string }>(
    `with revoked as (
       update auth.refresh_tokens set revoked = true, updated_at = now() where session_id = $1 and not revoked returning id, token
     )
     select token from revoked order by id desc limit 1`,
    [sessionId],
  );
  return insertRefreshToken(tx, userId, sessionId, rows[0]?.token ?? null);
}

/**
 * DELETE /factors/:id. A verified factor needs an aal2 session; sessions it raised fall back to
 * aal1 and lose its amr entry. With the last verified factor go the recovery codes.
 */
export async function unenrollFactor(deps: AppDeps, who: Authenticated, factor: FactorRow, client: ClientInfo): Promise<{ id: string }> {
  const sessionId = sessionOf(who);
  if (factor.status === 'verified' && (await sessionAal(deps.db, sessionId)) !== 'aal2') {
    throw new AuthError(422, 'insufficient_aal', 'AAL2 required to unenroll verified factor');
  }
  if (factor.status === 'verified' && !(await secondFactorIsFresh(deps.db, sessionId))) {
    throw new AuthError(403, 'reauthentication_needed', FRESH_CODE_NEEDED);
  }
  await deps.db.transaction(async (tx) => {
    await tx.query(`delete from auth.mfa_factors where id = $1`, [factor.id]);
    await tx.query(
      `update auth.sessions s set aal = 'aal1', factor_id = null, updated_at = now(),
         amr = coalesce(
           (select jsonb_agg(t.e order by t.i) from jsonb_array_elements(s.amr) with ordinality t(e, i) where t.e ->> 'method' <> $3),
           '[]'::jsonb)
       where s.user_id = $1 and s.factor_id = $2`,
      [who.user.id, factor.id, factor.factor_type],
    );
    await tx.query(
      `delete from auth.mfa_recovery_codes where user_id = $1
       and not exists (select 1 from auth.mfa_factors where user_id = $1 and status = 'verified')`,
      [who.user.id],
    );
    // An enrolment never completed protected nothing: only a verified factor's removal is news.
    if (factor.status === 'verified') await queueSecurityMail(deps, tx, who.user.id, 'factor-removed', client);
  });
  return { id: factor.id };
}
