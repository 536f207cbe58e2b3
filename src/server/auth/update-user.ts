import type { AppDeps } from '../deps';
import { AuthError } from './auth-errors';
import type { Authenticated } from './authenticate';
import { lacksRequiredAal2 } from './mfa-factors';
import { assertPasswordAcceptable, hashPassword, verifyPassword } from './passwords';
import { enforceFailureLimits, type FailureCounters, recordFailure } from './rate-limits';
import { queueSecurityMail } from './security-mail';
import type { AmrEntry } from './access-token';
import { type ClientInfo, endSessions } from './sessions';
import { checkMetadataFields, checkMetadataSize } from './user-metadata';
import { findUserById, normalizeEmail, passwordOwner, type UserRow } from './users';

export type UserUpdate = {
  password: string | undefined;
  currentPassword: string | undefined;
  data: Record<string, unknown> | undefined;
  email: string | undefined;
  phone: string | undefined;
  appMetadata: unknown;
};

/**
 * PUT /user (supabase-wire §3.8). Everything is checked before anything is written, so a refused
 * request changes nothing. With a verified MFA factor, password and e-mail need an aal2 session.
 * A new password needs the current one (GoTrue's current_password), except in the session a
 * recovery link opened, and then ends every other session of the user and mails the owner;
 * `data` merges into user_metadata, and a key set to null is removed (GoTrue's UpdateUserMetaData).
 */
export async function updateUser(deps: AppDeps, who: Authenticated, update: UserUpdate, client: ClientInfo): Promise<UserRow> {
  const { user } = who;
  if (update.appMetadata !== undefined && update.appMetadata !== null) {
    throw new AuthError(403, 'not_admin', 'Updating app_metadata requires admin privileges');
  }
  const changesCredentials = !!update.password || (!!update.email && update.email.trim().toLowerCase() !== user.email);
  if (changesCredentials && (await lacksRequiredAal2(deps.db, user.id, who.sessionId))) {
    throw new AuthError(401, 'insufficient_aal', 'AAL2 session is required to update email or password when MFA is enabled.');
  }
  if (update.email !== undefined && normalizeEmail(update.email) !== user.email) {
    throw new AuthError(422, 'email_change_not_supported', 'Changing the e-mail address is not supported. Please contact support.');
  }
  if (update.phone) throw new AuthError(422, 'phone_provider_disabled', 'Phone numbers are not supported');
  if (update.data) checkMetadataFields(update.data);
  let hash: string | undefined;
  if (update.password !== undefined) {
    const { rows } = await deps.db.query<{ encrypted_password: string | null }>(`select encrypted_password from auth.users where id = $1`, [user.id]);
    const current = rows[0]?.encrypted_password;
    if (!(await isRecoverySession(deps, who.sessionId))) await assertCurrentPassword(deps, user, current, update.currentPassword);
    assertPasswordAcceptable(update.password, passwordOwner(user));
    if (await verifyPassword(update.password, current)) {
      throw new AuthError(422, 'same_password', 'New password should be different from the old password.');
    }
    hash = await hashPassword(update.password);
  }
  return deps.db.transaction(async (tx) => {
    if (update.data) {
      const { rows } = await tx.query<{ raw_user_meta_data: Record<string, unknown> }>(`select raw_user_meta_data from auth.users where id = $1 for update`, [
        user.id,
      ]);
      const previous = rows[0]?.raw_user_meta_data ?? {};
      const meta = { ...previous };
      for (const [k, v] of Object.entries(update.data)) {
        if (v === null) delete meta[k];
        else meta[k] = v;
      }
      // Thrown inside the transaction: nothing of this request is written.
      checkMetadataSize(meta, previous);
      await tx.query(`update auth.users set raw_user_meta_data = $2::jsonb, updated_at = now() where id = $1`, [user.id, JSON.stringify(meta)]);
    }
    if (hash) {
      await tx.query(`update auth.users set encrypted_password = $2, recovery_token = null, updated_at = now() where id = $1`, [user.id, hash]);
      await endSessions(tx, user.id, who.sessionId, 'others');
      await queueSecurityMail(deps, tx, user.id, 'password-changed', client);
    }
    const fresh = await findUserById(tx, user.id);
    if (!fresh) throw new AuthError(403, 'user_not_found', 'User from sub claim in JWT does not exist');
    return fresh;
  });
}

/** The session a recovery link opened (amr `otp`, or GoTrue's `recovery`): the link proved ownership. */
async function isRecoverySession(deps: AppDeps, sessionId: string | null): Promise<boolean> {
  if (!sessionId) return false;
  const { rows } = await deps.db.query<{ amr: AmrEntry[] }>(`select amr from auth.sessions where id = $1`, [sessionId]);
  return (rows[0]?.amr ?? []).some((a) => a.method === 'otp' || a.method === 'recovery');
}

/**
 * A stolen access token alone must not take the account over: the current password is required,
 * and wrong guesses count against the same per-address limit as failed sign-ins.
 */
async function assertCurrentPassword(deps: AppDeps, user: UserRow, hash: string | null | undefined, given: string | undefined): Promise<void> {
  if (!given) throw new AuthError(400, 'current_password_required', 'Current password required when setting new password.');
  // Counted apart from sign-in failures, which strangers can add: only a session holder adds these.
  const counters: FailureCounters = [{ name: 'currentPasswordFailuresPerUser', subject: user.id }];
  await enforceFailureLimits(deps, counters);
  if (!(await verifyPassword(given, hash))) {
    await recordFailure(deps, counters);
    throw new AuthError(400, 'current_password_invalid', 'Current password is incorrect.');
  }
}
