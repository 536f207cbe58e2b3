import type { Queryable } from '../db/database';

/** A row of auth.mfa_factors without its secret, which only verification reads. */
export type FactorRow = {
  id: string;
  user_id: string;
  friendly_name: string | null;
  factor_type: string;
  status: 'unverified' | 'verified';
  created_at: Date;
  updated_at: Date;
  phone: string | null;
  last_challenged_at: Date | null;
};

export const FACTOR_COLUMNS = `id, user_id, friendly_name, factor_type, status, created_at, updated_at, phone, last_challenged_at`;

/**
 * GoTrue's Factor JSON: `friendly_name` left out when empty, `phone` "" when none,
 * `last_challenged_at` null until the first challenge. The secret is never part of it.
 */
export function factorJson(f: FactorRow): Record<string, unknown> {
  return {
    id: f.id,
    created_at: f.created_at.toISOString(),
    updated_at: f.updated_at.toISOString(),
    status: f.status,
    friendly_name: f.friendly_name || undefined,
    factor_type: f.factor_type,
    phone: f.phone ?? '',
    last_challenged_at: f.last_challenged_at ? f.last_challenged_at.toISOString() : null,
  };
}

/**
 * GoTrue's rule for changing the password or e-mail: once the user has a verified factor, only
 * a session that has passed it (aal2) may. A token without a session counts as aal1.
 */
export async function lacksRequiredAal2(db: Queryable, userId: string, sessionId: string | null): Promise<boolean> {
  const { rows } = await db.query<{ verified: boolean; aal: string | null }>(
    `select exists (select 1 from auth.mfa_factors where user_id = $1 and status = 'verified') as verified,
            (select aal from auth.sessions where id = $2) as aal`,
    [userId, sessionId],
  );
  const row = rows[0]!;
  return row.verified && row.aal !== 'aal2';
}
