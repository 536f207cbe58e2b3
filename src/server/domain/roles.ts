import type { Queryable } from '../db/database';

export type Role = 'admin' | 'dev-access';

const tables: Record<Role, string> = { admin: 'public.admin_users', 'dev-access': 'public.dev_access_users' };

/** Grants a role; granting it twice is not an error. */
export async function grantRole(db: Queryable, userId: string, role: Role): Promise<void> {
  await db.query(`insert into ${tables[role]} (user_id) values ($1) on conflict (user_id) do nothing`, [userId]);
}

/** Revokes a role; returns whether the user had it. */
export async function revokeRole(db: Queryable, userId: string, role: Role): Promise<boolean> {
  const r = await db.query(`delete from ${tables[role]} where user_id = $1`, [userId]);
  return r.rowCount > 0;
}

export function grantAdmin(db: Queryable, userId: string): Promise<void> {
  return grantRole(db, userId, 'admin');
}
