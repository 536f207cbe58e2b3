import type { Context } from 'hono';
import { adminCreateUserSchema, messages } from '../../shared/validation';
import { AuthError } from '../auth/auth-errors';
import { createUser } from '../auth/users';
import type { AppDeps } from '../deps';
import { addCreditsIn } from '../domain/credits';
import { grantAdmin } from '../domain/roles';
import { setClaims } from '../db/with-claims';
import { callerContext, fail, invalid, jsonBody, overLimit } from './function-response';
import { signedInPastSecondFactor } from './second-factor';

/** An operator onboards a handful of people at a time; each creation also costs a bcrypt hash. */
const LIMIT = { max: 30, windowSeconds: 600 };

class NotAdmin extends Error {}

/**
 * Admin › Create user (registration stays closed to the public): a confirmed user as
 * `users:create` makes one, optionally an admin, optionally with credit, and each step in the
 * audit log with the admin as actor, the address and the user agent, all in one transaction.
 */
export async function adminCreateUser(deps: AppDeps, c: Context) {
  const caller = await signedInPastSecondFactor(deps, c);
  if (caller instanceof Response) return caller;
  const read = await jsonBody(c);
  if ('error' in read) return fail(c, 400, read.error);
  const parsed = adminCreateUserSchema.safeParse(read.body);
  if (!parsed.success) return invalid(c, parsed.error);
  const limited = await overLimit(
    deps,
    c,
    `admin-create-user:user:${caller.userId}`,
    LIMIT,
    (wait) => `Too many new users. Please try again in ${Math.ceil(wait / 60)} minutes.`,
  );
  if (limited) return limited;
  const input = parsed.data;
  try {
    const user = await deps.db.transaction(async (tx) => {
      await setClaims(tx, callerContext(deps, c, caller));
      const { rows } = await tx.query<{ admin: boolean }>('select public.is_user_admin(auth.uid()) as admin');
      if (!rows[0]!.admin) throw new NotAdmin();
      // NOTE: the server writes auth.users as itself, as sign-up does; the claims stay set, so
      // every audit entry below names the admin, with the request's address and user agent.
      await tx.query('set local role none');
      const u = await createUser(tx, { email: input.email, password: input.password, fullName: input.full_name });
      await tx.query(`select private.record_admin_action('user.create', 'user', $1, $2, null, $3)`, [
        u.id,
        u.email,
        { admin: input.admin, full_name: input.full_name },
      ]);
      if (input.admin) await grantAdmin(tx, u.id);
      if (input.credits) await addCreditsIn(tx, u.id, input.credits, 'Initial credit');
      return u;
    });
    return c.json({ id: user.id, email: user.email });
  } catch (e) {
    if (e instanceof NotAdmin) return fail(c, 403, 'Only admins can create users');
    if (e instanceof AuthError) {
      if (e.code === 'user_already_exists') return fail(c, 409, messages.userExists);
      // A common password, one over 72 bytes, an address GoTrue would refuse: its words.
      return fail(c, 400, e.message);
    }
    throw e;
  }
}
