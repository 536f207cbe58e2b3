import type { SupabaseClient } from '@supabase/supabase-js';
import { Secret, TOTP } from 'otpauth';
import type { TestServer } from './server';
import type { TestUser } from './users';

/**
 * Codes as an authenticator app computes them. Each code is for the current step or the next,
 * both inside the server's ±1 window whichever side of a step boundary the request lands, and
 * later than the last code given, since the server takes each step once.
 */
export function authenticator(secret: string) {
  const totp = new TOTP({ secret: Secret.fromBase32(secret), algorithm: 'SHA1', digits: 6, period: 30 });
  let last = -1;
  return {
    next(): string {
      const now = totp.counter();
      const step = Math.max(last + 1, now);
      if (step > now + 1) throw new Error('a test may use at most two codes of one factor');
      last = step;
      return totp.generate({ timestamp: step * 30_000 });
    },
    /** The code given last, for replay tests. */
    again: () => totp.generate({ timestamp: last * 30_000 }),
  };
}

export type SecondFactor = { factorId: string; codes: ReturnType<typeof authenticator> };

/** Enrols and verifies a TOTP factor through the user's own client, which is then at aal2. */
export async function verifyNewFactor(user: TestUser): Promise<SecondFactor> {
  const { data, error } = await user.client.auth.mfa.enroll({ factorType: 'totp', friendlyName: 'Phone app' });
  if (error) throw error;
  const factor = { factorId: data.id, codes: authenticator(data.totp.secret) };
  const verified = await user.client.auth.mfa.challengeAndVerify({ factorId: factor.factorId, code: factor.codes.next() });
  if (verified.error) throw verified.error;
  return factor;
}

/** A new sign-in with the password alone: an aal1 session that has not passed the factor. */
export async function signInAal1(s: TestServer, user: TestUser): Promise<SupabaseClient> {
  const client = s.client();
  const { error } = await client.auth.signInWithPassword({ email: user.email, password: user.password });
  if (error) throw error;
  return client;
}
