import type { AppDeps } from '../deps';
import { hitRateLimit, peekRateLimit, type Limit } from '../http/rate-limit';
import { AuthError } from './auth-errors';

/**
 * Every auth rate limit, in one place. Counters live in the database, so they hold across server
 * processes. Windows are fixed; the e-mail address is lowercased before it keys a counter.
 */
export const AUTH_LIMITS = {
  // Every grant of /token (GoTrue's GOTRUE_RATE_LIMIT_TOKEN_REFRESH): per client address, so it
  // throttles only the one who sends them.
  tokenPerIp: { max: 150, windowSeconds: 300 },
  // Sign-in failures only, counted after the password is checked: enough for a person who mistypes,
  // far too few for guessing. An address the account has signed in from has its own count per
  // account, so a stranger's failures cannot lock the owner out (OWASP, Authentication Cheat Sheet).
  passwordFailuresPerIp: { max: 30, windowSeconds: 300 },
  passwordFailuresPerEmail: { max: 10, windowSeconds: 300 },
  passwordFailuresPerKnownAddress: { max: 10, windowSeconds: 300 },
  // Past passwordFailuresPerEmail, the right password from a new address e-mails the owner a link
  // (address-links.ts): at most this many an hour, so one who holds the password cannot flood the
  // mailbox. The warning that someone is guessing goes once a day, however often the lock engages.
  addressLinkPerEmail: { max: 5, windowSeconds: 3600 },
  guessingWarningPerEmail: { max: 1, windowSeconds: 86400 },
  // A wrong current password when changing it, per account: not the sign-in count, which strangers
  // fill, so that their guesses cannot stop the signed-in owner from changing the password.
  currentPasswordFailuresPerUser: { max: 10, windowSeconds: 300 },
  // POST /verify, where the link is redeemed: GoTrue's GOTRUE_RATE_LIMIT_VERIFY (360 an hour per IP).
  verifyPerIp: { max: 360, windowSeconds: 3600 },
  // Sign-up (when enabled): a handful of accounts per address and per hour.
  signupPerIp: { max: 10, windowSeconds: 3600 },
  signupPerEmail: { max: 3, windowSeconds: 3600 },
  // Recovery mail: GoTrue's SMTP max frequency (one per address per 60 s), and a cap per IP.
  recoverPerIp: { max: 10, windowSeconds: 3600 },
  recoverPerEmail: { max: 1, windowSeconds: 60 },
  // MFA: GoTrue's 15 challenges and 15 verifications per minute per IP. Wrong codes are counted
  // per session, and per factor only from addresses the account does not know: someone holding
  // the password cannot spend the owner's attempts, yet guessing from many addresses stays hopeless.
  factorChallengePerIp: { max: 15, windowSeconds: 60 },
  factorVerifyPerIp: { max: 15, windowSeconds: 60 },
  factorFailuresPerSession: { max: 10, windowSeconds: 300 },
  factorFailuresPerFactor: { max: 10, windowSeconds: 300 },
  // Recovery codes: as many tries per IP as TOTP, and per session a cap that an attacker with
  // the password cannot spend for the owner, who signs in with a session of their own.
  recoveryCodePerIp: { max: 15, windowSeconds: 60 },
  recoveryCodePerSession: { max: 10, windowSeconds: 300 },
} satisfies Record<string, Limit>;

type LimitName = keyof typeof AUTH_LIMITS;

const keyOf = (name: LimitName, subject: string) => `auth:${name}:${subject.toLowerCase()}`;

const overRequestRateLimit = (wait: number) => new AuthError(429, 'over_request_rate_limit', 'Request rate limit reached', {}, { 'Retry-After': String(wait) });

/** Counts one request against a limit; over it, throws GoTrue's 429 `over_request_rate_limit`. */
export async function enforceRequestLimit(deps: AppDeps, name: LimitName, subject: string): Promise<void> {
  if (!deps.config.rateLimitsEnabled) return;
  const wait = await hitRateLimit(deps.db, keyOf(name, subject), AUTH_LIMITS[name]);
  if (wait > 0) throw overRequestRateLimit(wait);
}

/** Failure counters that guard one attempt, e.g. per address and per account. */
export type FailureCounters = { name: LimitName; subject: string }[];

/**
 * Throws GoTrue's 429 when any of the counters has reached its limit, without counting. Called
 * after the credential was checked, so that the answer can depend on who is asking, and before
 * telling whether it was right, so that a throttled guesser learns nothing.
 */
export async function enforceFailureLimits(deps: AppDeps, counters: FailureCounters): Promise<void> {
  for (const counter of counters) {
    const wait = await failureLimitWait(deps, counter);
    if (wait > 0) throw overRequestRateLimit(wait);
  }
}

/** Without counting: the seconds until the counter's window ends once it has reached its limit, else 0. */
export async function failureLimitWait(deps: AppDeps, { name, subject }: FailureCounters[number]): Promise<number> {
  if (!deps.config.rateLimitsEnabled) return 0;
  return peekRateLimit(deps.db, keyOf(name, subject), AUTH_LIMITS[name]);
}

/** Counts one failed attempt on each counter. */
export async function recordFailure(deps: AppDeps, counters: FailureCounters): Promise<void> {
  if (!deps.config.rateLimitsEnabled) return;
  for (const { name, subject } of counters) await hitRateLimit(deps.db, keyOf(name, subject), AUTH_LIMITS[name]);
}

/** Counts one use of a limit and tells whether it was within it, for what is skipped silently when not. */
export async function withinLimit(deps: AppDeps, name: LimitName, subject: string): Promise<boolean> {
  if (!deps.config.rateLimitsEnabled) return true;
  return (await hitRateLimit(deps.db, keyOf(name, subject), AUTH_LIMITS[name])) === 0;
}

/** Counts one e-mail sent to an address; too soon, throws GoTrue's 429 `over_email_send_rate_limit`. */
export async function enforceEmailFrequency(deps: AppDeps, name: LimitName, email: string): Promise<void> {
  if (!deps.config.rateLimitsEnabled) return;
  const wait = await hitRateLimit(deps.db, keyOf(name, email), AUTH_LIMITS[name]);
  if (wait > 0) {
    throw new AuthError(
      429,
      'over_email_send_rate_limit',
      `For security purposes, you can only request this after ${wait} seconds.`,
      {},
      { 'Retry-After': String(wait) },
    );
  }
}
