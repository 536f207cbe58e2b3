import type { Context } from 'hono';
import type { ContactSettings } from '../../shared/contact-settings';
import type { AppDeps } from '../deps';
import { withClaims } from '../db/with-claims';
import { fail } from './function-response';
import { signedInPastSecondFactor } from './second-factor';

/**
 * The contact form's server settings, for admins (spec §6, read-only). The recipient and sender
 * addresses are not secrets; of SMTP_URL only the host is told, never its credentials. Whether the
 * caller is an admin is the database's answer, under the caller's own claims.
 */
export async function contactSettings(deps: AppDeps, c: Context) {
  const caller = await signedInPastSecondFactor(deps, c);
  if (caller instanceof Response) return caller;
  const admin = await withClaims(deps.db, { role: 'authenticated', claims: caller.claims, readOnly: true }, async (tx) => {
    const { rows } = await tx.query<{ admin: boolean }>('select public.is_user_admin(auth.uid()) as admin');
    return rows[0]!.admin;
  });
  if (!admin) return fail(c, 403, 'Only admins can read the contact settings');
  const { smtpUrl, contactTo, mailFrom } = deps.config;
  const settings: ContactSettings = { contact_to: contactTo ?? null, mail_from: mailFrom, smtp_host: smtpUrl ? new URL(smtpUrl).host : null };
  return c.json(settings);
}
