import type { Queryable } from '../db/database';
import { FACTOR_COLUMNS, type FactorRow, factorJson } from './mfa-factors';
import type { UserRow } from './users';

type IdentityRow = {
  id: string;
  provider_id: string;
  user_id: string;
  identity_data: Record<string, unknown>;
  provider: string;
  last_sign_in_at: Date | null;
  created_at: Date;
  updated_at: Date;
  email: string | null;
};

const iso = (d: Date | null) => (d ? d.toISOString() : undefined);

/**
 * GoTrue's User JSON (supabase-wire §2.5): nullable timestamps are left out when null, `phone` is
 * "" when empty, identities cross their names over (`identity_id` is the row, `id` the provider id),
 * and `factors` (unverified ones too) is left out when there are none.
 */
export function userJson(u: UserRow, identities: IdentityRow[], factors: FactorRow[] = []): Record<string, unknown> {
  const body: Record<string, unknown> = {
    id: u.id,
    aud: u.aud,
    role: u.role,
    email: u.email ?? '',
    email_confirmed_at: iso(u.email_confirmed_at),
    phone: u.phone ?? '',
    phone_confirmed_at: iso(u.phone_confirmed_at),
    confirmation_sent_at: iso(u.confirmation_sent_at),
    confirmed_at: iso(u.email_confirmed_at ?? u.phone_confirmed_at),
    recovery_sent_at: iso(u.recovery_sent_at),
    last_sign_in_at: iso(u.last_sign_in_at),
    invited_at: iso(u.invited_at),
    app_metadata: u.raw_app_meta_data,
    user_metadata: u.raw_user_meta_data,
    identities: identities.map((i) => ({
      identity_id: i.id,
      id: i.provider_id,
      user_id: i.user_id,
      identity_data: i.identity_data,
      provider: i.provider,
      last_sign_in_at: iso(i.last_sign_in_at),
      created_at: iso(i.created_at),
      updated_at: iso(i.updated_at),
      email: i.email ?? undefined,
    })),
    factors: factors.length > 0 ? factors.map(factorJson) : undefined,
    created_at: iso(u.created_at),
    updated_at: iso(u.updated_at),
    banned_until: iso(u.banned_until),
    deleted_at: iso(u.deleted_at),
    is_anonymous: u.is_anonymous,
  };
  // JSON.stringify drops undefined: that is GoTrue's omitempty.
  return body;
}

const IDENTITY_COLUMNS = `id, provider_id, user_id, identity_data, provider, last_sign_in_at, created_at, updated_at, email`;

/**
 * A user's identities and MFA factors as two JSON arrays, `identities` and `factors`, for the user
 * whose id is the SQL expression `userId`: a select-list fragment, so that a statement which
 * already reads the user (the refresh grant) needs no second round trip.
 */
export function linkedRowsSql(userId: string): string {
  return `(select coalesce(json_agg(i order by i.created_at), '[]') from (select ${IDENTITY_COLUMNS} from auth.identities where user_id = ${userId}) i) as identities,
    (select coalesce(json_agg(f order by f.created_at, f.id), '[]') from (select ${FACTOR_COLUMNS} from auth.mfa_factors where user_id = ${userId}) f) as factors`;
}

/** What linkedRowsSql selects, as the driver returns it: JSON, so its timestamps are strings. */
export type LinkedRows = { identities: Jsonified<IdentityRow>[]; factors: Jsonified<FactorRow>[] };
type Jsonified<T> = { [K in keyof T]: T[K] extends Date ? string : T[K] extends Date | null ? string | null : T[K] };

const date = (s: string | null) => (s === null ? null : new Date(s));

/** The user as JSON from the rows linkedRowsSql selected. */
export function userJsonFromLinked(u: UserRow, linked: LinkedRows): Record<string, unknown> {
  const identities = linked.identities.map((i) => ({
    ...i,
    last_sign_in_at: date(i.last_sign_in_at),
    created_at: new Date(i.created_at),
    updated_at: new Date(i.updated_at),
  }));
  const factors = linked.factors.map((f) => ({
    ...f,
    created_at: new Date(f.created_at),
    updated_at: new Date(f.updated_at),
    last_challenged_at: date(f.last_challenged_at),
  }));
  return userJson(u, identities, factors);
}

/** The user as JSON, with identities and MFA factors read from the database in one statement. */
export async function loadUserJson(db: Queryable, u: UserRow): Promise<Record<string, unknown>> {
  const { rows } = await db.query<LinkedRows>(`select ${linkedRowsSql('$1')}`, [u.id]);
  return userJsonFromLinked(u, rows[0]!);
}
