import type { AppDeps } from '../deps';
import { hitRateLimit, type Limit } from '../http/rate-limit';
import { AuthError } from './auth-errors';

/**
 * Every auth rate limit, in one place. Counters live in the database, so they hold across server
 * processes. Windows are fixed; the e-mail address is lowercased before it keys a counter.
 */
export const AUTH_LIMITS = {
  // Sign-in: enough for a person who mistypes, far too few for password guessing.
  passwordPerIp: { max: 30, windowSeconds: 300 },
  passwordPerEmail: { max: 10, windowSeconds: 300 },
  // Sign-up (when enabled): a handful of accounts per address and per hour.
  signupPerIp: { max: 10, windowSeconds: 3600 },
  signupPerEmail: { max: 3, windowSeconds: 3600 },
  // Recovery mail: GoTrue's SMTP max frequency (one per address per 60 s), and a cap per IP.
  recoverPerIp: { max: 10, windowSeconds: 3600 },
  recoverPerEmail: { max: 1, windowSeconds: 60 },
  // MFA: GoTrue's 15 challenges and 15 verifications per minute per IP, and per factor a cap
  // that keeps guessing a 6-digit code from many addresses hopeless.
  factorChallengePerIp: { max: 15, windowSeconds: 60 },
  factorVerifyPerIp: { max: 15, windowSeconds: 60 },
  factorVerifyPerFactor: { max: 10, windowSeconds: 300 },
  // Recovery codes: as many tries per IP as TOTP, and per session a cap that an attacker with
  // the password cannot spend for the owner, who signs in with a session of their own.
  recoveryCodePerIp: { max: 15, windowSeconds: 60 },
  recoveryCodePerSession: { max: 10, windowSeconds: 300 },
} satisfies Record<string, Limit>;

type LimitName = keyof typeof AUTH_LIMITS;

/** Counts one request against a limit; over it, throws GoTrue's 429 `over_request_rate_limit`. */
export async function enforceRequestLimit(deps: AppDeps, name: LimitName, subject: string): Promise<void> {
  if (!deps.config.rateLimitsEnabled) return;
  const wait = await hitRateLimit(deps.db, `auth:${name}:${subject.toLowerCase()}`, AUTH_LIMITS[name]);
  if (wait > 0) {
    throw new AuthError(429, 'over_request_rate_limit', 'Request rate limit reached', {}, { 'Retry-After': String(wait) });
  }
}

/** Counts one e-mail sent to an address; too soon, throws GoTrue's 429 `over_email_send_rate_limit`. */
export async function enforceEmailFrequency(deps: AppDeps, name: LimitName, email: string): Promise<void> {
  if (!deps.config.rateLimitsEnabled) return;
  const wait = await hitRateLimit(deps.db, `auth:${name}:${email.toLowerCase()}`, AUTH_LIMITS[name]);
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
