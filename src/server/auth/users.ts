import { z } from 'zod';
import type { Queryable } from '../db/database';
import { isDbError } from '../db/database';
import { AuthError, validationFailed } from './auth-errors';
import type { PasswordOwner } from '../../shared/password-strength';
import { assertPasswordAcceptable, hashPassword } from './passwords';
import { checkMetadataFields, checkMetadataSize } from './user-metadata';
import { isUuid } from '../../shared/validation';

/** A row of auth.users, as the server reads it (column names are Supabase's). */
export type UserRow = {
  id: string;
  aud: string;
  role: string;
  email: string | null;
  encrypted_password: string | null;
  email_confirmed_at: Date | null;
  invited_at: Date | null;
  confirmation_sent_at: Date | null;
  recovery_sent_at: Date | null;
  last_sign_in_at: Date | null;
  raw_app_meta_data: Record<string, unknown>;
  raw_user_meta_data: Record<string, unknown>;
  created_at: Date;
  updated_at: Date;
  phone: string | null;
  phone_confirmed_at: Date | null;
  banned_until: Date | null;
  deleted_at: Date | null;
  is_anonymous: boolean;
};

export const USER_COLUMNS = `id, aud, role, email, encrypted_password, email_confirmed_at, invited_at, confirmation_sent_at,
  recovery_sent_at, last_sign_in_at, raw_app_meta_data, raw_user_meta_data, created_at, updated_at, phone,
  phone_confirmed_at, banned_until, deleted_at, is_anonymous`;

export type NewUser = {
  email: string;
  password: string;
  fullName?: string | undefined;
  /** Confirmed users can sign in at once; defaults to true (NodeHarbor sends no confirmation mail). */
  confirmed?: boolean | undefined;
  /** Extra user_metadata (sign-up `data`); `fullName` wins over a full_name in here. */
  userMetadata?: Record<string, unknown> | undefined;
};

/** Lowercases and checks an address the way GoTrue does, throwing its 400 validation_failed. */
export function normalizeEmail(raw: string | undefined, missingMessage = 'An email address is required'): string {
  const email = (raw ?? '').trim().toLowerCase();
  if (!email) throw validationFailed(missingMessage);
  if (email.length > 255) throw validationFailed('An email address is too long');
  if (!z.email().safeParse(email).success) throw validationFailed('Unable to validate email address: invalid format');
  return email;
}

const userExists = () => new AuthError(422, 'user_already_exists', 'User already registered');

/**
 * Creates an e-mail/password user with its `email` identity, in one statement so that a caller
 * without a transaction never leaves a user without identity. Validates like GoTrue's sign-up:
 * 400 for a bad address or an over-long password, 422 weak_password, 422 user_already_exists.
 */
export async function createUser(db: Queryable, input: NewUser): Promise<UserRow> {
  const email = normalizeEmail(input.email);
  const confirmed = input.confirmed ?? true;
  const meta: Record<string, unknown> = { ...input.userMetadata };
  if (input.fullName !== undefined) meta.full_name = input.fullName;
  assertPasswordAcceptable(input.password, { email, fullName: typeof meta.full_name === 'string' ? meta.full_name : undefined });
  // GoTrue marks a confirmed address in the metadata too (models.User.Confirm).
  if (confirmed) meta.email_verified = true;
  checkMetadataFields(meta);
  checkMetadataSize(meta);
  const appMeta = { provider: 'email', providers: ['email'] };
  const hash = await hashPassword(input.password);
  if (await findUserByEmail(db, email)) throw userExists();
  try {
    const { rows } = await db.query<UserRow>(
      `with u as (
         insert into auth.users (email, encrypted_password, email_confirmed_at, raw_app_meta_data, raw_user_meta_data)
         values ($1, $2, case when $3::boolean then now() end, $4::jsonb, $5::jsonb)
         returning *
       ), i as (
         insert into auth.identities (provider_id, user_id, provider, identity_data)
         select u.id::text, u.id, 'email',
                jsonb_build_object('sub', u.id::text, 'email', u.email, 'email_verified', $3::boolean, 'phone_verified', false)
                || case when $6::text is null then '{}'::jsonb else jsonb_build_object('full_name', $6::text) end
         from u
       )
       select ${USER_COLUMNS} from u`,
      [email, hash, confirmed, JSON.stringify(appMeta), JSON.stringify(meta), input.fullName ?? null],
    );
    return rows[0]!;
  } catch (e) {
    // Two sign-ups of one address at the same moment: the unique index decides.
    if (isDbError(e) && e.code === '23505') throw userExists();
    throw e;
  }
}

/** What the password rule counts among a guesser's first tries: the user's address and name. */
export function passwordOwner(user: Pick<UserRow, 'email' | 'raw_user_meta_data'>): PasswordOwner {
  const name = user.raw_user_meta_data.full_name;
  return { email: user.email, fullName: typeof name === 'string' ? name : undefined };
}

/** The live (not deleted) user with this address, or null. The address is matched lowercased. */
export async function findUserByEmail(db: Queryable, email: string): Promise<UserRow | null> {
  // No stored address holds U+0000, and PostgreSQL would refuse it as a parameter.
  if (email.includes('\u0000')) return null;
  const { rows } = await db.query<UserRow>(`select ${USER_COLUMNS} from auth.users where email = $1 and deleted_at is null`, [email.trim().toLowerCase()]);
  return rows[0] ?? null;
}

/** The live user with this id, or null (also for a string that is not a UUID). */
export async function findUserById(db: Queryable, id: string): Promise<UserRow | null> {
  if (!isUuid(id)) return null;
  const { rows } = await db.query<UserRow>(`select ${USER_COLUMNS} from auth.users where id = $1 and deleted_at is null`, [id]);
  return rows[0] ?? null;
}

/**
 * Sets a new password after GoTrue's checks (400 too long, 422 weak_password). Clears any pending
 * recovery token, since the link it belongs to has served its purpose. Sessions are not touched.
 */
export async function setPassword(db: Queryable, userId: string, password: string): Promise<void> {
  const user = await findUserById(db, userId);
  if (!user) throw new AuthError(404, 'user_not_found', 'User not found');
  assertPasswordAcceptable(password, passwordOwner(user));
  const hash = await hashPassword(password);
  const { rowCount } = await db.query(`update auth.users set encrypted_password = $2, recovery_token = null, updated_at = now() where id = $1`, [userId, hash]);
  if (rowCount !== 1) throw new AuthError(404, 'user_not_found', 'User not found');
}
