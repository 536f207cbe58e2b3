import { AuthSessionMissingError, type SupabaseClient } from '@supabase/supabase-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUTH_LIMITS } from '../../src/server/auth/rate-limits';
import { hashToken } from '../../src/server/auth/sessions';
import { createUser } from '../../src/server/auth/users';
import { authenticator } from '../helpers/mfa';
import { startTestServer, type TestServer } from '../helpers/server';
import { authFetch, claimsOf } from './helpers';

const PASSWORD = 'quiet-secret-pass';

describe('TOTP two-factor authentication through supabase-js', () => {
  let t: TestServer;
  const logLines: string[] = [];
  let n = 0;
  beforeAll(async () => {
    t = await startTestServer({ RATE_LIMITS_ENABLED: 'false' }, { logLines });
  });
  afterAll(() => t.stop());

  async function signedIn() {
    const email = `mfa${++n}@example.com`;
    const user = await createUser(t.deps.db, { email, password: PASSWORD });
    const sb = t.client();
    const { error } = await sb.auth.signInWithPassword({ email, password: PASSWORD });
    expect(error).toBeNull();
    return { sb, email, user };
  }

  async function signInAgain(email: string) {
    const sb = t.client();
    const { error } = await sb.auth.signInWithPassword({ email, password: PASSWORD });
    expect(error).toBeNull();
    return sb;
  }

  async function accessToken(sb: SupabaseClient) {
    return (await sb.auth.getSession()).data.session!.access_token;
  }

  async function enrol(sb: SupabaseClient, friendlyName?: string) {
    const { data, error } = await sb.auth.mfa.enroll({ factorType: 'totp', ...(friendlyName ? { friendlyName } : {}) });
    expect(error).toBeNull();
    return { ...data!, codes: authenticator(data!.totp.secret) };
  }

  /** A user with a verified factor, signed in at aal2. */
  async function withVerifiedFactor() {
    const s = await signedIn();
    const factor = await enrol(s.sb, 'Phone app');
    const { error } = await s.sb.auth.mfa.challengeAndVerify({ factorId: factor.id, code: factor.codes.next() });
    expect(error).toBeNull();
    return { ...s, factor };
  }

  it('enrols a factor: an SVG QR code, a secret and its otpauth URI; listed as unverified', async () => {
    const { sb, email, user } = await signedIn();
    const { data, error } = await sb.auth.mfa.enroll({ factorType: 'totp', friendlyName: 'My phone' });
    expect(error).toBeNull();
    const f = data!;
    expect(f).toMatchObject({ type: 'totp', friendly_name: 'My phone' });
    expect(f.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(f.totp.qr_code.startsWith('data:image/svg+xml;utf-8,<svg')).toBe(true);
    // The client does not escape the SVG: a '#' would cut the data URL short.
    expect(f.totp.qr_code).not.toContain('#');
    expect(f.totp.secret).toMatch(/^[A-Z2-7]{32}$/);
    // The issuer is the host of the site, as GoTrue's; the account is the e-mail address.
    const issuer = new URL(t.deps.config.publicUrl).host;
    expect(f.totp.uri.startsWith(`otpauth://totp/${encodeURIComponent(issuer)}:${encodeURIComponent(email)}?`)).toBe(true);
    const uri = new URL(f.totp.uri);
    expect(Object.fromEntries(uri.searchParams)).toMatchObject({ secret: f.totp.secret, issuer, algorithm: 'SHA1', digits: '6', period: '30' });

    const list = await sb.auth.mfa.listFactors();
    expect(list.error).toBeNull();
    expect(list.data!.totp).toEqual([]);
    expect(list.data!.all).toEqual([
      {
        id: f.id,
        friendly_name: 'My phone',
        factor_type: 'totp',
        status: 'unverified',
        phone: '',
        last_challenged_at: null,
        created_at: expect.any(String),
        updated_at: expect.any(String),
      },
    ]);
    const { rows } = await t.deps.db.query<{ secret: string }>(`select secret from auth.mfa_factors where user_id = $1`, [user.id]);
    expect(rows[0]!.secret).not.toContain(f.totp.secret);
    expect(JSON.parse(rows[0]!.secret)).toMatchObject({ alg: 'aes-gcm-hkdf', nonce: expect.any(String), data: expect.any(String) });

    // The client may name the issuer its users see in their authenticator app.
    const named = await sb.auth.mfa.enroll({ factorType: 'totp', friendlyName: 'Named', issuer: 'NodeHarbor' });
    expect(named.data!.totp.uri.startsWith(`otpauth://totp/NodeHarbor:${encodeURIComponent(email)}?`)).toBe(true);
  });

  it('verifies a code: the session becomes aal2 with totp in amr, and the factor verified', async () => {
    const { sb, user } = await signedIn();
    const before = (await sb.auth.getSession()).data.session!;
    const factor = await enrol(sb);
    const challenge = await sb.auth.mfa.challenge({ factorId: factor.id });
    expect(challenge.error).toBeNull();
    expect(challenge.data).toEqual({ id: expect.any(String), type: 'totp', expires_at: expect.any(Number) });
    expect(challenge.data!.expires_at - Date.now() / 1000).toBeGreaterThan(290);
    expect(challenge.data!.expires_at - Date.now() / 1000).toBeLessThanOrEqual(300);

    const { data, error } = await sb.auth.mfa.verify({ factorId: factor.id, challengeId: challenge.data!.id, code: factor.codes.next() });
    expect(error).toBeNull();
    expect(data).toMatchObject({ token_type: 'bearer', expires_in: 3600, refresh_token: expect.any(String), user: { id: user.id } });
    expect(data!.refresh_token).not.toBe(before.refresh_token);
    const claims = claimsOf(data!.access_token);
    expect(claims.aal).toBe('aal2');
    expect(claims.session_id).toBe(claimsOf(before.access_token).session_id);
    expect((claims.amr as { method: string }[]).map((a) => a.method)).toEqual(['totp', 'password']);
    // supabase-js stored the new session.
    expect(await accessToken(sb)).toBe(data!.access_token);

    const aal = await sb.auth.mfa.getAuthenticatorAssuranceLevel();
    expect(aal.data).toMatchObject({ currentLevel: 'aal2', nextLevel: 'aal2' });
    const list = await sb.auth.mfa.listFactors();
    expect(list.data!.totp).toEqual([expect.objectContaining({ id: factor.id, status: 'verified', last_challenged_at: expect.any(String) })]);
    const { rows } = await t.deps.db.query(`select aal, factor_id from auth.sessions where id = $1`, [claims.session_id]);
    expect(rows).toEqual([{ aal: 'aal2', factor_id: factor.id }]);
    // The refresh token the session had before is spent.
    const old = await t.deps.db.query(`select revoked from auth.refresh_tokens where token = $1`, [hashToken(before.refresh_token)]);
    expect(old.rows).toEqual([{ revoked: true }]);
  });

  it('refuses a wrong code with mfa_verification_failed and leaves the session at aal1', async () => {
    const { sb } = await signedIn();
    const factor = await enrol(sb);
    const code = factor.codes.next();
    const wrong = code === '000000' ? '000001' : '000000';
    const { data, error } = await sb.auth.mfa.challengeAndVerify({ factorId: factor.id, code: wrong });
    expect(data).toBeNull();
    expect([error?.status, error?.code, error?.message]).toEqual([422, 'mfa_verification_failed', 'Invalid TOTP code entered']);
    expect((await sb.auth.mfa.getAuthenticatorAssuranceLevel()).data).toMatchObject({ currentLevel: 'aal1', nextLevel: 'aal1' });
    expect((await sb.auth.mfa.listFactors()).data!.all).toEqual([expect.objectContaining({ status: 'unverified' })]);
    for (const bad of ['12345', '1234567', 'abcdef']) {
      const r = await sb.auth.mfa.challengeAndVerify({ factorId: factor.id, code: bad });
      expect(r.error?.code).toBe('mfa_verification_failed');
    }
    // The right code still works on a fresh challenge.
    expect((await sb.auth.mfa.challengeAndVerify({ factorId: factor.id, code })).error).toBeNull();
  });

  it('asks for the code at the next sign-in (aal1 → aal2), and challengeAndVerify reaches aal2', async () => {
    const { email, factor } = await withVerifiedFactor();
    const sb = await signInAgain(email);
    const aal = await sb.auth.mfa.getAuthenticatorAssuranceLevel();
    expect(aal.data!.currentLevel).toBe('aal1');
    expect(aal.data!.nextLevel).toBe('aal2');
    expect(aal.data!.currentAuthenticationMethods).toEqual([expect.objectContaining({ method: 'password' })]);
    // The same answer when the client passes the token itself (read through GET /user).
    expect((await sb.auth.mfa.getAuthenticatorAssuranceLevel(await accessToken(sb))).data).toMatchObject({
      currentLevel: 'aal1',
      nextLevel: 'aal2',
    });
    const { error } = await sb.auth.mfa.challengeAndVerify({ factorId: factor.id, code: factor.codes.next() });
    expect(error).toBeNull();
    expect((await sb.auth.mfa.getAuthenticatorAssuranceLevel()).data).toMatchObject({ currentLevel: 'aal2', nextLevel: 'aal2' });
  });

  it('refuses a code already used, even on a new challenge within its window', async () => {
    const { email, factor } = await withVerifiedFactor();
    const sb = await signInAgain(email);
    const { error } = await sb.auth.mfa.challengeAndVerify({ factorId: factor.id, code: factor.codes.again() });
    expect([error?.status, error?.code]).toEqual([422, 'mfa_verification_failed']);
    expect((await sb.auth.mfa.getAuthenticatorAssuranceLevel()).data!.currentLevel).toBe('aal1');
  });

  it('refuses a challenge verified once already, and an expired one (which it deletes)', async () => {
    const { sb } = await signedIn();
    const factor = await enrol(sb);
    const used = await sb.auth.mfa.challenge({ factorId: factor.id });
    expect((await sb.auth.mfa.verify({ factorId: factor.id, challengeId: used.data!.id, code: factor.codes.next() })).error).toBeNull();
    const again = await sb.auth.mfa.verify({ factorId: factor.id, challengeId: used.data!.id, code: factor.codes.next() });
    expect([again.error?.status, again.error?.code, again.error?.message]).toEqual([
      422,
      'mfa_ip_address_mismatch',
      'Challenge and verify IP addresses mismatch.',
    ]);

    const old = await sb.auth.mfa.challenge({ factorId: factor.id });
    await t.deps.db.query(`update auth.mfa_challenges set created_at = created_at - interval '301 seconds' where id = $1`, [old.data!.id]);
    const expired = await sb.auth.mfa.verify({ factorId: factor.id, challengeId: old.data!.id, code: '123456' });
    expect([expired.error?.status, expired.error?.code, expired.error?.message]).toEqual([
      422,
      'mfa_challenge_expired',
      `MFA challenge ${old.data!.id} has expired, verify against another challenge or create a new challenge.`,
    ]);
    const { rowCount } = await t.deps.db.query(`select 1 from auth.mfa_challenges where id = $1`, [old.data!.id]);
    expect(rowCount).toBe(0);
  });

  it('keeps aal2 and amr through the refresh grant, and its user has identities and factors', async () => {
    const { sb, factor } = await withVerifiedFactor();
    const before = claimsOf(await accessToken(sb));
    const { data, error } = await sb.auth.refreshSession();
    expect(error).toBeNull();
    const after = claimsOf(data.session!.access_token);
    expect(after.aal).toBe('aal2');
    expect(after.amr).toEqual(before.amr);
    expect(after.session_id).toBe(before.session_id);
    // The refresh reads these in its one statement, as JSON: the timestamps must come out as /user's do.
    const { rows } = await t.deps.db.query<{ created_at: Date; last_challenged_at: Date; identity_created_at: Date; last_sign_in_at: Date }>(
      `select f.created_at, f.last_challenged_at, i.created_at as identity_created_at, i.last_sign_in_at
         from auth.mfa_factors f join auth.identities i using (user_id) where f.id = $1`,
      [factor.id],
    );
    const row = rows[0]!;
    expect(data.user!.factors).toEqual([
      expect.objectContaining({
        id: factor.id,
        status: 'verified',
        created_at: row.created_at.toISOString(),
        last_challenged_at: row.last_challenged_at.toISOString(),
      }),
    ]);
    expect(data.user!.identities).toEqual([
      expect.objectContaining({ provider: 'email', created_at: row.identity_created_at.toISOString(), last_sign_in_at: row.last_sign_in_at.toISOString() }),
    ]);
    expect(data.user).toEqual((await sb.auth.getUser()).data.user);
  });

  it('unenrols a verified factor only at aal2; the next sign-in is aal1/aal1', async () => {
    const { sb, email, factor } = await withVerifiedFactor();
    const weak = await signInAgain(email);
    const refused = await weak.auth.mfa.unenroll({ factorId: factor.id });
    expect([refused.error?.status, refused.error?.code, refused.error?.message]).toEqual([
      422,
      'insufficient_aal',
      'AAL2 required to unenroll verified factor',
    ]);
    expect((await sb.auth.mfa.listFactors()).data!.totp).toHaveLength(1);

    const { data, error } = await sb.auth.mfa.unenroll({ factorId: factor.id });
    expect(error).toBeNull();
    expect(data).toEqual({ id: factor.id });
    // The session it raised falls back to aal1 and drops totp, as the next token shows.
    const refreshed = await sb.auth.refreshSession();
    expect(claimsOf(refreshed.data.session!.access_token)).toMatchObject({ aal: 'aal1', amr: [expect.objectContaining({ method: 'password' })] });
    expect((await sb.auth.mfa.listFactors()).data).toEqual({ all: [], totp: [], phone: [], webauthn: [] });
    const raw = await authFetch(t, '/user', { bearer: await accessToken(sb) });
    expect(raw.body).not.toHaveProperty('factors');

    const next = await signInAgain(email);
    expect((await next.auth.mfa.getAuthenticatorAssuranceLevel()).data).toMatchObject({ currentLevel: 'aal1', nextLevel: 'aal1' });
  });

  /** Ages the codes given in the user's sessions past the five minutes, as a session left open does. */
  const ageCodes = (userId: string) =>
    t.deps.db.query(
      `update auth.sessions set amr = (select jsonb_agg(jsonb_set(e, '{timestamp}', to_jsonb((e ->> 'timestamp')::bigint - 301)))
                                         from jsonb_array_elements(amr) e)
        where user_id = $1`,
      [userId],
    );

  it("removes a verified factor only with a code given in the last five minutes: the app's, or a recovery code", async () => {
    const { sb, user, factor } = await withVerifiedFactor();
    const recovery = await authFetch(t, '/factors/recovery-codes', { method: 'POST', body: {}, bearer: await accessToken(sb) });
    const [code] = (recovery.body as { codes: string[] }).codes;
    await ageCodes(user.id);
    const stale = await sb.auth.mfa.unenroll({ factorId: factor.id });
    expect([stale.error?.status, stale.error?.code, stale.error?.message]).toEqual([
      403,
      'reauthentication_needed',
      'Enter a current code from your authenticator app, or a recovery code, to remove two-factor authentication',
    ]);
    expect((await sb.auth.mfa.listFactors()).data!.totp).toHaveLength(1);

    // A recovery code makes the session fresh again, as a code of the app does.
    const redeemed = await authFetch(t, '/factors/recovery', { body: { code }, bearer: await accessToken(sb) });
    expect(redeemed.status).toBe(200);
    const body = redeemed.body as { access_token: string; refresh_token: string };
    expect((await sb.auth.setSession({ access_token: body.access_token, refresh_token: body.refresh_token })).error).toBeNull();
    expect((await sb.auth.mfa.unenroll({ factorId: factor.id })).error).toBeNull();
  });

  it('removes a verified factor after a fresh code of the app', async () => {
    const { sb, user, factor } = await withVerifiedFactor();
    await ageCodes(user.id);
    expect((await sb.auth.mfa.unenroll({ factorId: factor.id })).error?.code).toBe('reauthentication_needed');
    expect((await sb.auth.mfa.challengeAndVerify({ factorId: factor.id, code: factor.codes.next() })).error).toBeNull();
    expect((await sb.auth.mfa.unenroll({ factorId: factor.id })).error).toBeNull();
  });

  it('lets an aal1 session remove an unverified factor', async () => {
    const { sb } = await signedIn();
    const factor = await enrol(sb);
    expect((await sb.auth.mfa.unenroll({ factorId: factor.id })).error).toBeNull();
    expect((await sb.auth.mfa.listFactors()).data!.all).toEqual([]);
  });

  it('ends the other aal1 sessions and removes unverified factors when a factor is verified', async () => {
    const { sb, email } = await signedIn();
    const other = await signInAgain(email);
    const stray = await enrol(other, 'Abandoned');
    const factor = await enrol(sb, 'Kept');
    expect((await sb.auth.mfa.challengeAndVerify({ factorId: factor.id, code: factor.codes.next() })).error).toBeNull();
    expect((await other.auth.getUser()).error).toBeInstanceOf(AuthSessionMissingError);
    const all = (await sb.auth.mfa.listFactors()).data!.all;
    expect(all.map((f) => f.id)).toEqual([factor.id]);
    expect(all.map((f) => f.id)).not.toContain(stray.id);
  });

  it('requires aal2 to change the password once a factor is verified', async () => {
    const { sb, email } = await withVerifiedFactor();
    const weak = await signInAgain(email);
    const refused = await weak.auth.updateUser({ password: 'another-quiet-pass' });
    expect([refused.error?.status, refused.error?.code, refused.error?.message]).toEqual([
      401,
      'insufficient_aal',
      'AAL2 session is required to update email or password when MFA is enabled.',
    ]);
    // Metadata is not a credential: aal1 may change it.
    expect((await weak.auth.updateUser({ data: { theme: 'dark' } })).error).toBeNull();
    expect((await sb.auth.updateUser({ password: 'another-quiet-pass', current_password: PASSWORD })).error).toBeNull();
  });

  it('never puts the secret in GET /user, a session body or the logs', async () => {
    const { sb, factor } = await withVerifiedFactor();
    const user = await authFetch(t, '/user', { bearer: await accessToken(sb) });
    expect(user.status).toBe(200);
    expect(JSON.stringify(user.body)).not.toContain(factor.totp.secret);
    const factors = user.body!.factors as Record<string, unknown>[];
    expect(factors).toHaveLength(1);
    expect(Object.keys(factors[0]!).sort()).toEqual(
      ['created_at', 'factor_type', 'friendly_name', 'id', 'last_challenged_at', 'phone', 'status', 'updated_at'].sort(),
    );
    const refreshed = await sb.auth.refreshSession();
    expect(JSON.stringify(refreshed.data)).not.toContain(factor.totp.secret);
    expect(logLines.length).toBeGreaterThan(0);
    expect(logLines.join('\n')).not.toContain(factor.totp.secret);
  });

  it('answers bad requests with GoTrue errors and changes nothing', async () => {
    const { sb, user } = await signedIn();
    const token = await accessToken(sb);
    const factor = await enrol(sb, 'First');
    const stranger = await signedIn();
    const cases: [string, Parameters<typeof authFetch>[2], number, string][] = [
      ['/factors', { body: { factor_type: 'sms' } }, 400, 'validation_failed'],
      ['/factors', { body: {} }, 400, 'validation_failed'],
      ['/factors', { body: { factor_type: 'phone', phone: '+15550100' } }, 422, 'mfa_phone_enroll_not_enabled'],
      ['/factors', { body: { factor_type: 'webauthn' } }, 422, 'mfa_webauthn_enroll_not_enabled'],
      ['/factors', { body: { factor_type: 'totp', friendly_name: 'First' } }, 422, 'mfa_factor_name_conflict'],
      ['/factors', { body: { factor_type: 'totp', friendly_name: 7 } }, 400, 'bad_json'],
      ['/factors', { body: { factor_type: 'totp', friendly_name: 'x'.repeat(256) } }, 400, 'validation_failed'],
      ['/factors', { body: { factor_type: 'totp', friendly_name: 'Other', issuer: '😀'.repeat(65) } }, 400, 'validation_failed'],
      ['/factors', { body: '{"factor_type":' }, 400, 'bad_json'],
      [`/factors/not-a-uuid/challenge`, { body: {} }, 404, 'validation_failed'],
      [`/factors/${crypto.randomUUID()}/challenge`, { body: {} }, 404, 'mfa_factor_not_found'],
      [`/factors/${factor.id}/verify`, { body: { challenge_id: crypto.randomUUID() } }, 400, 'validation_failed'],
      [`/factors/${factor.id}/verify`, { body: { challenge_id: crypto.randomUUID(), code: '123456' } }, 422, 'mfa_factor_not_found'],
      [`/factors/${factor.id}/verify`, { body: { code: '123456' } }, 422, 'mfa_factor_not_found'],
      [`/factors/${factor.id}/verify`, { body: { challenge_id: 'nope', code: '123456' } }, 400, 'bad_json'],
      [`/factors/${factor.id}/verify`, { body: { challenge_id: 1, code: '123456' } }, 400, 'bad_json'],
      [`/factors/${factor.id}/verify`, { body: '[]' }, 400, 'bad_json'],
      [`/factors/${factor.id}`, { method: 'PUT', body: {} }, 404, 'not_found'],
    ];
    for (const [path, init, status, code] of cases) {
      const r = await authFetch(t, path, { bearer: token, ...init });
      expect([path, r.status, r.body?.code], JSON.stringify(init)).toEqual([path, status, code]);
    }
    const strangerToken = await accessToken(stranger.sb);
    for (const [method, path] of [
      ['POST', `/factors/${factor.id}/challenge`],
      ['POST', `/factors/${factor.id}/verify`],
      ['DELETE', `/factors/${factor.id}`],
    ] as const) {
      const r = await authFetch(t, path, { method, bearer: strangerToken, body: method === 'POST' ? { code: '1' } : undefined });
      expect([path, r.status, r.body?.code]).toEqual([path, 404, 'mfa_factor_not_found']);
    }
    const anonymous = await authFetch(t, '/factors', { body: { factor_type: 'totp' } });
    expect([anonymous.status, anonymous.body?.code]).toEqual([401, 'no_authorization']);
    const noKey = await fetch(`${t.url}/auth/v1/factors`, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body: '{}' });
    expect(noKey.status).toBe(401);

    const { rows } = await t.deps.db.query<{ n: number }>(
      `select (select count(*)::int from auth.mfa_factors where user_id = $1)
            + (select count(*)::int from auth.mfa_challenges c join auth.mfa_factors f on f.id = c.factor_id where f.user_id = $1) as n`,
      [user.id],
    );
    expect(rows[0]!.n).toBe(1);
    expect((await sb.auth.mfa.listFactors()).data!.all).toEqual([expect.objectContaining({ id: factor.id, status: 'unverified' })]);
  });

  it('refuses a second unnamed factor, more than ten factors, and a new factor at aal1 once one is verified', async () => {
    const { sb } = await signedIn();
    await enrol(sb);
    const unnamed = await sb.auth.mfa.enroll({ factorType: 'totp' });
    expect([unnamed.error?.status, unnamed.error?.code, unnamed.error?.message]).toEqual([
      422,
      'mfa_factor_name_conflict',
      'A factor with the friendly name "" for this user already exists',
    ]);
    for (let i = 1; i < 10; i++) await enrol(sb, `Factor ${i}`);
    const eleventh = await sb.auth.mfa.enroll({ factorType: 'totp', friendlyName: 'Factor 10' });
    expect([eleventh.error?.status, eleventh.error?.code]).toEqual([422, 'too_many_enrolled_mfa_factors']);

    const { email } = await withVerifiedFactor();
    const weak = await signInAgain(email);
    const refused = await weak.auth.mfa.enroll({ factorType: 'totp', friendlyName: 'Second' });
    expect([refused.error?.status, refused.error?.code, refused.error?.message]).toEqual([403, 'insufficient_aal', 'AAL2 required to enroll a new factor']);
  });

  it('sweeps unverified factors never challenged once they are five minutes old', async () => {
    const { sb, user } = await signedIn();
    const stale = await enrol(sb, 'Stale');
    const challenged = await enrol(sb, 'Challenged');
    await sb.auth.mfa.challenge({ factorId: challenged.id });
    await t.deps.db.query(`update auth.mfa_factors set created_at = created_at - interval '301 seconds' where user_id = $1`, [user.id]);
    await enrol(sb, 'Fresh');
    const names = (await sb.auth.mfa.listFactors()).data!.all.map((f) => f.friendly_name);
    expect(names).toEqual(['Challenged', 'Fresh']);
    expect(names).not.toContain(stale.friendly_name);
  });
});

describe('TOTP verification rate limits', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer({ RATE_LIMITS_ENABLED: 'true' });
  });
  afterAll(() => t.stop());

  it('stops guessing after the per-session limit, in GoTrue shape', async () => {
    await createUser(t.deps.db, { email: 'guess@example.com', password: PASSWORD });
    const sb = t.client();
    expect((await sb.auth.signInWithPassword({ email: 'guess@example.com', password: PASSWORD })).error).toBeNull();
    const { data: factor } = await sb.auth.mfa.enroll({ factorType: 'totp' });
    const { data: challenge } = await sb.auth.mfa.challenge({ factorId: factor!.id });
    const codes = authenticator(factor!.totp.secret);
    const right = codes.next();
    const wrong = right === '000000' ? '000001' : '000000';
    for (let i = 0; i < AUTH_LIMITS.factorFailuresPerSession.max; i++) {
      const { error } = await sb.auth.mfa.verify({ factorId: factor!.id, challengeId: challenge!.id, code: wrong });
      expect(error?.code).toBe('mfa_verification_failed');
    }
    const { error } = await sb.auth.mfa.verify({ factorId: factor!.id, challengeId: challenge!.id, code: right });
    expect([error?.status, error?.code, error?.message]).toEqual([429, 'over_request_rate_limit', 'Request rate limit reached']);
    expect((await sb.auth.mfa.getAuthenticatorAssuranceLevel()).data!.currentLevel).toBe('aal1');
  });
});
