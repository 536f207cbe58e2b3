import { Hono } from 'hono';
import type { Context } from 'hono';
import { messages } from '../../shared/validation';
import type { AppDeps } from '../deps';
import { requestDeps } from '../http/share-by-caller';
import { requireApiKey } from '../http/api-key';
import { clientIp } from '../http/client-ip';
import { classifyDbFailure } from '../db/db-failure';
import { redeemAddressLink } from './address-links';
import { AuthError, OAuthError, authErrorFor, authErrorPayload, validationFailed } from './auth-errors';
import { authenticate } from './authenticate';
import { lacksRequiredAal2 } from './mfa-factors';
import { mfaRoutes } from './mfa.routes';
import { enforceEmailFrequency, enforceRequestLimit } from './rate-limits';
import { redeemRecoveryToken, requestRecovery, safeRedirect } from './recovery';
import { optionalObject, optionalString, readJsonObject } from './request-body';
import { type ClientInfo, type LogoutScope, endSessions, refreshSession, startSession } from './sessions';
import { passwordGrant, signUp } from './sign-in';
import { updateUser } from './update-user';
import { loadUserJson } from './user-json';
import { normalizeEmail } from './users';

// Link types GoTrue verifies besides recovery. We issue recovery links (GET /verify) and the new
// address's link (POST /verify, type email); any other cannot be valid.
const OTHER_LINK_TYPES = new Set(['signup', 'invite', 'magiclink', 'email_change', 'email']);

/** GoTrue-compatible endpoints under /auth/v1 (supabase-wire §2–3). */
export function authRoutes(appDeps: AppDeps): Hono {
  const { config, logger } = appDeps;
  const r = new Hono();
  // Like Supabase's gateway: every route needs the apikey, except /verify, opened from an e-mail.
  const apiKey = requireApiKey(appDeps.keys);
  const client = (c: Context): ClientInfo => ({ ip: clientIp(c, config.trustProxy), userAgent: c.req.header('user-agent') });

  r.post('/signup', apiKey, async (c) => {
    const deps = requestDeps(c, appDeps);
    const body = await readJsonObject(c);
    const input = {
      email: optionalString(body, 'email'),
      phone: optionalString(body, 'phone'),
      password: optionalString(body, 'password'),
      data: optionalObject(body, 'data'),
    };
    return c.json(await signUp(deps, input, client(c)));
  });

  r.post('/token', apiKey, async (c) => {
    const deps = requestDeps(c, appDeps);
    const grant = c.req.query('grant_type');
    if (grant === 'password') {
      const body = await readJsonObject(c);
      const input = { email: optionalString(body, 'email'), phone: optionalString(body, 'phone'), password: optionalString(body, 'password') };
      return c.json(await passwordGrant(deps, input, client(c)));
    }
    if (grant === 'refresh_token') {
      const token = optionalString(await readJsonObject(c), 'refresh_token');
      if (!token) throw new OAuthError('invalid_request', 'refresh_token required');
      await enforceRequestLimit(deps, 'tokenPerIp', client(c).ip);
      return c.json(await refreshSession(deps, token, client(c)));
    }
    throw new AuthError(400, 'invalid_credentials', 'unsupported_grant_type');
  });

  r.post('/logout', apiKey, async (c) => {
    const deps = requestDeps(c, appDeps);
    const who = await authenticate(deps, c.req.header('authorization'));
    const scope = c.req.query('scope') ?? '';
    if (!['', 'global', 'local', 'others'].includes(scope)) throw validationFailed(`Unsupported logout scope "${scope}"`);
    // A password alone must not sign the owner out of the sessions that passed the second factor:
    // only its own session goes (a token without one would end them all).
    const endsOthers = scope !== 'local' || !who.sessionId;
    if (endsOthers && (await lacksRequiredAal2(deps.db, who.user.id, who.sessionId))) {
      throw new AuthError(403, 'insufficient_aal', 'AAL2 session is required to sign out other sessions when MFA is enabled.');
    }
    await endSessions(deps.db, who.user.id, who.sessionId, (scope || 'global') as LogoutScope);
    return c.body(null, 204);
  });

  r.post('/recover', apiKey, async (c) => {
    const deps = requestDeps(c, appDeps);
    const email = normalizeEmail(optionalString(await readJsonObject(c), 'email'), 'Password recovery requires an email');
    await enforceRequestLimit(deps, 'recoverPerIp', client(c).ip);
    await enforceEmailFrequency(deps, 'recoverPerEmail', email);
    // The same work for every address, account or not: the mail itself is the job's business.
    await requestRecovery(deps, email, safeRedirect(config, c.req.query('redirect_to')));
    return c.json({});
  });

  r.get('/verify', async (c) => {
    const deps = requestDeps(c, appDeps);
    // Hono answers HEAD with the GET handler; a mail scanner's HEAD must not spend the one-time link.
    if (c.req.method === 'HEAD') return c.body(null, 405, { Allow: 'GET' });
    const token = c.req.query('token');
    const type = c.req.query('type') ?? '';
    const redirect = safeRedirect(config, c.req.query('redirect_to'));
    if (!token) throw validationFailed('Verify requires a token or a token hash');
    if (type !== 'recovery' && !OTHER_LINK_TYPES.has(type)) throw validationFailed('Unsupported verification type');
    const userId = type === 'recovery' ? await redeemRecoveryToken(deps, token) : null;
    if (!userId) {
      const fragment = fragmentOf({
        error: 'access_denied',
        error_code: 'otp_expired',
        error_description: 'Email link is invalid or has expired',
        sb: '',
      });
      return c.redirect(`${redirect}#${fragment}`, 303);
    }
    const s = await startSession(deps, userId, 'otp', client(c));
    const fragment = fragmentOf({
      access_token: s.access_token,
      expires_at: String(s.expires_at),
      expires_in: String(s.expires_in),
      refresh_token: s.refresh_token,
      sb: '',
      token_type: s.token_type,
      type: 'recovery',
    });
    return c.redirect(`${redirect}#${fragment}`, 303);
  });

  // GoTrue's POST /verify with a token_hash, as supabase-js's verifyOtp sends it: here only the
  // link that lets a new address through a locked account (address-links.ts). It carries the
  // token itself, which is hashed before the look-up, so the stored hash alone opens nothing.
  r.post('/verify', apiKey, async (c) => {
    const deps = requestDeps(c, appDeps);
    const body = await readJsonObject(c);
    const type = optionalString(body, 'type') ?? '';
    const token = optionalString(body, 'token_hash');
    if (!token && !optionalString(body, 'token')) throw validationFailed('Verify requires a token or a token hash');
    if (type !== 'recovery' && !OTHER_LINK_TYPES.has(type)) throw validationFailed('Unsupported verification type');
    await enforceRequestLimit(deps, 'verifyPerIp', client(c).ip);
    const userId = type === 'email' && token ? await redeemAddressLink(deps, token, client(c)) : null;
    if (!userId) throw new AuthError(403, 'otp_expired', type === 'email' ? messages.addressLinkInvalid : 'Token has expired or is invalid');
    // The password sign-in the lock held back (amr password): unlike a recovery link's session
    // (otp), it may not change the password without the current one.
    return c.json(await startSession(deps, userId, 'password', client(c)));
  });

  r.get('/user', apiKey, async (c) => {
    const deps = requestDeps(c, appDeps);
    const who = await authenticate(deps, c.req.header('authorization'));
    return c.json(await loadUserJson(deps.db, who.user));
  });

  r.put('/user', apiKey, async (c) => {
    const deps = requestDeps(c, appDeps);
    const who = await authenticate(deps, c.req.header('authorization'));
    const body = await readJsonObject(c);
    const user = await updateUser(
      deps,
      who,
      {
        password: optionalString(body, 'password'),
        currentPassword: optionalString(body, 'current_password'),
        data: optionalObject(body, 'data'),
        email: optionalString(body, 'email'),
        phone: optionalString(body, 'phone'),
        appMetadata: body.app_metadata,
      },
      client(c),
    );
    return c.json(await loadUserJson(deps.db, user));
  });

  r.get('/settings', apiKey, (c) =>
    c.json({
      external: { email: true, phone: false, anonymous_users: false },
      disable_signup: !config.registrationEnabled,
      mailer_autoconfirm: true,
      phone_autoconfirm: false,
      sms_provider: '',
      saml_enabled: false,
    }),
  );

  r.route('/factors', mfaRoutes(appDeps));

  r.get('/health', apiKey, (c) => c.json({ version: 'nodeharbor', name: 'GoTrue', description: 'GoTrue-compatible auth of NodeHarbor' }));

  r.all('*', apiKey, () => {
    throw new AuthError(404, 'not_found', 'Not found');
  });

  r.onError((err, c) => {
    const version = c.req.header('x-supabase-api-version');
    if (err instanceof OAuthError) return c.json({ error: err.error, error_description: err.description }, 400);
    if (err instanceof AuthError) {
      const { body, headers } = authErrorPayload(err, version);
      return c.json(body, err.status, headers);
    }
    // The database's passing failures are logged once per incident (db/outage-log.ts), not here.
    const failure = classifyDbFailure(err);
    if (failure) {
      const { body, headers } = authErrorPayload(authErrorFor(failure), version);
      return c.json(body, failure.status, headers);
    }
    logger.error('auth request failed', { path: c.req.path, err });
    const { body, headers } = authErrorPayload(
      new AuthError(500, 'unexpected_failure', 'Unexpected failure, please check server logs for more information'),
      version,
    );
    return c.json(body, 500, headers);
  });
  return r;
}

/** Form-encodes params with sorted keys, as Go's url.Values.Encode does for GoTrue's redirects. */
function fragmentOf(params: Record<string, string>): string {
  return new URLSearchParams(Object.entries(params).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))).toString();
}
