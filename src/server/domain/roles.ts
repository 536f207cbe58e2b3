import type { Queryable } from '../db/database';

export type Role = 'admin' | 'dev-access';

const tables: Record<Role, string> = { admin: 'public.admin_users', 'dev-access': 'public.dev_access_users' };
const actions: Record<Role, string> = { admin: 'role.admin', 'dev-access': 'role.dev_access' };

/**
 * The audit entry of a role change, in the same statement as the change: only a change that
 * happened is recorded. `actor` names who asked when no admin's request does (the CLI, the server).
 */
function changeRole(db: Queryable, change: string, userId: string, role: Role, granted: boolean, actor: string) {
  return db.query(
    `with changed as (${change})
     select private.record_admin_action($2, 'user', c.user_id::text, u.email,
              jsonb_build_object('granted', not $3::boolean), jsonb_build_object('granted', $3::boolean), $4)
       from changed c left join auth.users u on u.id = c.user_id`,
    [userId, `${actions[role]}.${granted ? 'grant' : 'revoke'}`, granted, actor],
  );
}

/** Grants a role; granting it twice is not an error (and is not recorded twice). */
export async function grantRole(db: Queryable, userId: string, role: Role, actor = 'server'): Promise<void> {
  await changeRole(db, `insert into ${tables[role]} (user_id) values ($1) on conflict (user_id) do nothing returning user_id`, userId, role, true, actor);
}

/** Revokes a role; returns whether the user had it. */
export async function revokeRole(db: Queryable, userId: string, role: Role, actor = 'server'): Promise<boolean> {
  const r = await changeRole(db, `delete from ${tables[role]} where user_id = $1 returning user_id`, userId, role, false, actor);
  return r.rowCount > 0;
}

export function grantAdmin(db: Queryable, userId: string, actor = 'server'): Promise<void> {
  return grantRole(db, userId, 'admin', actor);
}
