import { Hono } from 'hono';
import type { Context } from 'hono';
import type { AppDeps } from '../deps';
import { requestDeps } from '../http/share-by-caller';
import { requireApiKey } from '../http/api-key';
import { clientIp } from '../http/client-ip';
import { AuthError } from './auth-errors';
import { type Authenticated, authenticate } from './authenticate';
import { challengeFactor, enrollFactor, findOwnedFactor, sessionOf, unenrollFactor, verifyFactor } from './mfa';
import { redeemRecoveryCode, regenerateRecoveryCodes, remainingRecoveryCodes } from './mfa-recovery-codes';
import { isKnownAddress } from './known-addresses';
import { enforceFailureLimits, enforceRequestLimit, type FailureCounters, recordFailure } from './rate-limits';
import { optionalString, readJsonObject } from './request-body';
import type { ClientInfo } from './sessions';

/**
 * GoTrue's /factors endpoints (TOTP only), mounted under /auth/v1 so that errors reach its
 * handler: enrol, challenge, verify, unenrol. Listing is GET /user's `factors`. Recovery codes
 * are ours (GoTrue has none): count, regenerate, and sign in with one.
 */
export function mfaRoutes(appDeps: AppDeps): Hono {
  const r = new Hono();
  const ip = (c: Context) => clientIp(c, appDeps.config.trustProxy);
  const client = (c: Context): ClientInfo => ({ ip: ip(c), userAgent: c.req.header('user-agent') });
  r.use('*', requireApiKey(appDeps.keys));

  /** GoTrue's requireAuthentication and requireNotAnonymous. */
  async function caller(deps: AppDeps, c: Context): Promise<Authenticated> {
    const who = await authenticate(deps, c.req.header('authorization'));
    if (who.claims.is_anonymous === true) throw new AuthError(403, 'no_authorization', 'Anonymous user not allowed to perform these actions');
    return who;
  }

  r.post('/', async (c) => {
    const deps = requestDeps(c, appDeps);
    const who = await caller(deps, c);
    const body = await readJsonObject(c);
    const input = {
      factorType: optionalString(body, 'factor_type'),
      friendlyName: optionalString(body, 'friendly_name'),
      issuer: optionalString(body, 'issuer'),
    };
    return c.json(await enrollFactor(deps, who, input));
  });

  r.get('/recovery-codes', async (c) => {
    const deps = requestDeps(c, appDeps);
    const who = await caller(deps, c);
    return c.json(await remainingRecoveryCodes(deps.db, who.user.id));
  });

  r.post('/recovery-codes', async (c) => {
    const deps = requestDeps(c, appDeps);
    const who = await caller(deps, c);
    // The codes are shown once: no cache may keep them.
    return c.json(await regenerateRecoveryCodes(deps, who), 200, { 'Cache-Control': 'no-store' });
  });

  r.post('/recovery', async (c) => {
    const deps = requestDeps(c, appDeps);
    const who = await caller(deps, c);
    await enforceRequestLimit(deps, 'recoveryCodePerIp', ip(c));
    await enforceRequestLimit(deps, 'recoveryCodePerSession', sessionOf(who));
    const code = optionalString(await readJsonObject(c), 'code');
    return c.json(await redeemRecoveryCode(deps, who, code, client(c)));
  });

  r.post('/:factorId/challenge', async (c) => {
    const deps = requestDeps(c, appDeps);
    const who = await caller(deps, c);
    const factor = await findOwnedFactor(deps.db, who.user.id, c.req.param('factorId'));
    await enforceRequestLimit(deps, 'factorChallengePerIp', ip(c));
    return c.json(await challengeFactor(deps, who, factor, ip(c)));
  });

  r.post('/:factorId/verify', async (c) => {
    const deps = requestDeps(c, appDeps);
    const who = await caller(deps, c);
    const factor = await findOwnedFactor(deps.db, who.user.id, c.req.param('factorId'));
    await enforceRequestLimit(deps, 'factorVerifyPerIp', ip(c));
    // Wrong codes count against this session, and against the factor only from an address the
    // account does not know: whoever holds the password cannot spend the owner's attempts.
    const counters: FailureCounters = [{ name: 'factorFailuresPerSession', subject: who.sessionId ?? 'none' }];
    if (!(await isKnownAddress(deps.db, who.user.id, ip(c)))) counters.push({ name: 'factorFailuresPerFactor', subject: factor.id });
    await enforceFailureLimits(deps, counters);
    const body = await readJsonObject(c);
    const input = { challengeId: optionalString(body, 'challenge_id'), code: optionalString(body, 'code') };
    try {
      return c.json(await verifyFactor(deps, who, factor, input, client(c)));
    } catch (e) {
      if (e instanceof AuthError && e.code === 'mfa_verification_failed') await recordFailure(deps, counters);
      throw e;
    }
  });

  r.delete('/:factorId', async (c) => {
    const deps = requestDeps(c, appDeps);
    const who = await caller(deps, c);
    const factor = await findOwnedFactor(deps.db, who.user.id, c.req.param('factorId'));
    return c.json(await unenrollFactor(deps, who, factor, client(c)));
  });

  return r;
}
