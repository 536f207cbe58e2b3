import { NEW_ADDRESS_LINK_CODE } from '../../shared/constants';
import { passwordWeakness } from '../../shared/password-strength';
import { messages } from '../../shared/validation';
import type { AppDeps } from '../deps';
import { offerAddressLink, warnIfLocked } from './address-links';
import { AuthError, validationFailed } from './auth-errors';
import { verifyPassword } from './passwords';
import { isKnownAddress } from './known-addresses';
import { enforceFailureLimits, enforceRequestLimit, failureLimitWait, type FailureCounters, recordFailure } from './rate-limits';
import { type ClientInfo, type SessionBody, startSession } from './sessions';
import { createUser, findUserByEmail, normalizeEmail, passwordOwner } from './users';

const invalidCredentials = () => new AuthError(400, 'invalid_credentials', 'Invalid login credentials');

/**
 * The password grant (supabase-wire §3.2). Unknown address, missing or wrong password all give
 * the same answer, in about the same time. Confirmation is checked after the password, as GoTrue
 * does, so that it reveals nothing to someone without the password.
 */
export async function passwordGrant(
  deps: AppDeps,
  input: { email: string | undefined; phone: string | undefined; password: string | undefined },
  client: ClientInfo,
): Promise<SessionBody> {
  if (input.email && input.phone) throw new AuthError(422, 'validation_failed', 'Only an email address or phone number should be provided on login.');
  if (!input.email) {
    if (input.phone) throw new AuthError(400, 'phone_provider_disabled', 'Phone logins are disabled');
    throw validationFailed('missing email or phone');
  }
  const email = input.email.trim().toLowerCase();
  await enforceRequestLimit(deps, 'tokenPerIp', client.ip);
  const password = input.password ?? '';
  const user = await findUserByEmail(deps.db, email);
  const ok = await verifyPassword(password, user?.encrypted_password);
  // Only failures count, and the account's own count is kept apart for each address it has
  // signed in from: strangers' guesses throttle the strangers, never the owner at home.
  const known = await isKnownAddress(deps.db, user?.id ?? null, client.ip);
  const counters: FailureCounters = [
    { name: 'passwordFailuresPerIp', subject: client.ip },
    known ? { name: 'passwordFailuresPerKnownAddress', subject: `${email} ${client.ip}` } : { name: 'passwordFailuresPerEmail', subject: email },
  ];
  // A guessing address, or the owner's own mistypes at home, wait.
  await enforceFailureLimits(deps, known ? counters : counters.slice(0, 1));
  const right = !!user && ok && password !== '';
  if (!known) {
    // Failures, likely a stranger's, have locked the account for new addresses: the right password
    // e-mails the owner a link that lets this address in. The answer is the same either way, so
    // guessing past the limit still tells nothing.
    const wait = await failureLimitWait(deps, counters[1]!);
    if (wait > 0) {
      if (right) await offerAddressLink(deps, user, client);
      throw new AuthError(429, NEW_ADDRESS_LINK_CODE, messages.newAddressLinkSent, {}, { 'Retry-After': String(wait) });
    }
  }
  if (!right) {
    await recordFailure(deps, counters);
    if (!known) await warnIfLocked(deps, email, user, client);
    throw invalidCredentials();
  }
  // GoTrue's code; our words, since the person reads them on the sign-in page.
  if (user.banned_until && user.banned_until > new Date()) throw new AuthError(400, 'user_banned', messages.accountSuspended);
  if (!user.email_confirmed_at) throw new AuthError(400, 'email_not_confirmed', 'Email not confirmed');
  const session = await startSession(deps, user.id, 'password', client);
  // Always present on this grant (null when fine): an old password may predate today's policy.
  return { ...session, weak_password: passwordWeakness(password, passwordOwner(user)) };
}

/** Sign-up with e-mail and password (supabase-wire §3.1); addresses are confirmed at once. */
export async function signUp(
  deps: AppDeps,
  input: { email: string | undefined; phone: string | undefined; password: string | undefined; data: Record<string, unknown> | undefined },
  client: ClientInfo,
): Promise<SessionBody> {
  if (!deps.config.registrationEnabled) throw new AuthError(422, 'signup_disabled', 'Signups not allowed for this instance');
  if (!input.email && input.phone) throw new AuthError(400, 'phone_provider_disabled', 'Phone signups are disabled');
  const email = normalizeEmail(input.email, 'To signup, please provide your email');
  if (!input.password) throw validationFailed('Signup requires a valid password');
  await enforceRequestLimit(deps, 'signupPerIp', client.ip);
  await enforceRequestLimit(deps, 'signupPerEmail', email);
  const fullName = typeof input.data?.full_name === 'string' ? input.data.full_name : undefined;
  const user = await createUser(deps.db, { email, password: input.password, fullName, userMetadata: input.data });
  return startSession(deps, user.id, 'password', client);
}
