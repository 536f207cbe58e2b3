import { createClient, type SupabaseClient } from '@supabase/supabase-js';
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUTH_LIMITS } from '../../src/server/auth/rate-limits';
import { createUser } from '../../src/server/auth/users';
import { ADDRESS_LINK_PARAM, NEW_ADDRESS_LINK_CODE } from '../../src/shared/constants';
import { linksIn } from '../../src/shared/mail-outbox';
import { messages } from '../../src/shared/validation';
import { startTestServer, type TestServer } from '../helpers/server';
import { authenticator } from '../helpers/mfa';
import { authFetch } from './helpers';

const PASSWORD = 'owners-own-passphrase';
const HOME = '198.51.100.1';
const ATTACKER = '203.0.113.9';

/**
 * The attack: fail on purpose for someone else's account so that its owner cannot sign in. The
 * server sits behind one trusted proxy, whose X-Forwarded-For tells each client's address.
 */
describe('locking someone else out', () => {
  let t: TestServer;
  let n = 0;
  beforeAll(async () => {
    t = await startTestServer({ RATE_LIMITS_ENABLED: 'true', TRUST_PROXY: 'true' });
  });
  afterAll(() => t.stop());

  const signIn = (email: string, password: string, ip: string) =>
    authFetch(t, '/token?grant_type=password', { body: { email, password }, headers: { 'x-forwarded-for': ip } });

  /** supabase-js as a browser at `ip` uses it. */
  const browserAt = (ip: string): SupabaseClient =>
    createClient(t.url, t.anonKey, { auth: { persistSession: false, autoRefreshToken: false }, global: { headers: { 'x-forwarded-for': ip } } });

  async function account() {
    const email = `owner${++n}@example.com`;
    await createUser(t.deps.db, { email, password: PASSWORD });
    return email;
  }

  it("a stranger's wrong passwords do not lock the owner out at an address the account knows", async () => {
    const email = await account();
    expect((await signIn(email, PASSWORD, HOME)).status).toBe(200);
    for (let i = 0; i < AUTH_LIMITS.passwordFailuresPerEmail.max; i++) {
      expect((await signIn(email, 'a-wrong-guess', ATTACKER)).status).toBe(400);
    }
    // The guesser is throttled, right password or not, and learns nothing more.
    const guesser = await signIn(email, PASSWORD, ATTACKER);
    expect([guesser.status, guesser.body?.code]).toEqual([429, NEW_ADDRESS_LINK_CODE]);
    const wrong = await signIn(email, 'a-wrong-guess', '203.0.113.10');
    expect([wrong.status, wrong.body]).toEqual([429, guesser.body]);
    // The owner at home still signs in.
    const { error } = await browserAt(HOME).auth.signInWithPassword({ email, password: PASSWORD });
    expect(error).toBeNull();
  });

  it("the owner's own mistypes at home are still limited", async () => {
    const email = await account();
    expect((await signIn(email, PASSWORD, HOME)).status).toBe(200);
    for (let i = 0; i < AUTH_LIMITS.passwordFailuresPerKnownAddress.max; i++) {
      expect((await signIn(email, 'mistyped', HOME)).status).toBe(400);
    }
    expect((await signIn(email, PASSWORD, HOME)).status).toBe(429);
  });

  it('counts failures only: signing in again and again is not throttled by the failure limits', async () => {
    const email = await account();
    for (let i = 0; i <= AUTH_LIMITS.passwordFailuresPerEmail.max + 1; i++) {
      expect((await signIn(email, PASSWORD, '192.0.2.50')).status).toBe(200);
    }
  });

  it("throttles a guesser's own address across many accounts", async () => {
    const sprayer = '192.0.2.77';
    for (let i = 0; i < AUTH_LIMITS.passwordFailuresPerIp.max; i++) {
      expect((await signIn(`sprayed${i}@example.com`, 'Summer2026!', sprayer)).status).toBe(400);
    }
    expect((await signIn('sprayed-last@example.com', 'Summer2026!', sprayer)).status).toBe(429);
    expect((await signIn('sprayed-last@example.com', 'Summer2026!', '192.0.2.78')).status).toBe(400);
  });

  it("someone holding the password cannot spend the owner's second-factor attempts", async () => {
    const email = await account();
    const owner = browserAt(HOME);
    expect((await owner.auth.signInWithPassword({ email, password: PASSWORD })).error).toBeNull();
    const { data: factor } = await owner.auth.mfa.enroll({ factorType: 'totp' });
    const codes = authenticator(factor!.totp.secret);
    expect((await owner.auth.mfa.challengeAndVerify({ factorId: factor!.id, code: codes.next() })).error).toBeNull();

    // The attacker has the password, so an aal1 session, and guesses codes until throttled.
    const attacker = browserAt(ATTACKER);
    expect((await attacker.auth.signInWithPassword({ email, password: PASSWORD })).error).toBeNull();
    const { data: challenge } = await attacker.auth.mfa.challenge({ factorId: factor!.id });
    const right = codes.next();
    const wrong = right === '000000' ? '000001' : '000000';
    for (let i = 0; i < AUTH_LIMITS.factorFailuresPerSession.max; i++) {
      const { error } = await attacker.auth.mfa.verify({ factorId: factor!.id, challengeId: challenge!.id, code: wrong });
      expect(error?.code).toBe('mfa_verification_failed');
    }
    const blocked = await attacker.auth.mfa.verify({ factorId: factor!.id, challengeId: challenge!.id, code: wrong });
    expect(blocked.error?.status).toBe(429);
    // A new session from another unknown address gets no fresh attempts on the factor.
    const elsewhere = browserAt('203.0.113.10');
    expect((await elsewhere.auth.signInWithPassword({ email, password: PASSWORD })).error).toBeNull();
    const { data: again } = await elsewhere.auth.mfa.challenge({ factorId: factor!.id });
    expect((await elsewhere.auth.mfa.verify({ factorId: factor!.id, challengeId: again!.id, code: wrong })).error?.status).toBe(429);

    // The owner, signing in at home, still passes the second factor.
    const home = browserAt(HOME);
    expect((await home.auth.signInWithPassword({ email, password: PASSWORD })).error).toBeNull();
    const { error } = await home.auth.mfa.challengeAndVerify({ factorId: factor!.id, code: right });
    expect(error).toBeNull();
    expect((await home.auth.mfa.getAuthenticatorAssuranceLevel()).data!.currentLevel).toBe('aal2');
  });

  describe('the way through the lock: the right password from a new address, and a link by mail', () => {
    const TRAVEL = '198.51.100.50';
    const WARNING = 'Someone is trying to sign in to your NodeHarbor account';
    const LINK_MAIL = 'Was this you? Sign in to NodeHarbor from a new address';

    const mails = async (email: string) =>
      (
        await t.deps.db.query<{ subject: string; text_body: string }>(`select subject, text_body from nodeharbor.outbox where to_address = $1 order by id`, [
          email,
        ])
      ).rows;
    const subjects = async (email: string) => (await mails(email)).map((m) => m.subject);
    const knownAddresses = async (email: string) =>
      (
        await t.deps.db.query<{ ip: string }>(
          `select k.ip from auth.known_addresses k join auth.users u on u.id = k.user_id where u.email = $1 order by k.ip`,
          [email],
        )
      ).rows.map((r) => r.ip);
    /** The token of the newest link mailed to `email`, read from the link as its owner would. */
    async function mailedToken(email: string): Promise<string> {
      const mail = (await mails(email)).filter((m) => m.subject === LINK_MAIL).at(-1)!;
      const link = linksIn(mail.text_body).find((l) => l.includes(`#${ADDRESS_LINK_PARAM}=`))!;
      expect(link.startsWith(`${t.deps.config.publicUrl}/login#`)).toBe(true);
      return new URLSearchParams(new URL(link).hash.slice(1)).get(ADDRESS_LINK_PARAM)!;
    }
    const redeem = (token: string, ip: string) => authFetch(t, '/verify', { body: { type: 'email', token_hash: token }, headers: { 'x-forwarded-for': ip } });

    /** An account whose owner signed in at HOME, then a stranger's failures from `stranger` up to the limit. */
    async function lockedAccount(stranger: string) {
      const email = await account();
      expect((await signIn(email, PASSWORD, HOME)).status).toBe(200);
      for (let i = 0; i < AUTH_LIMITS.passwordFailuresPerEmail.max; i++) {
        expect((await signIn(email, `wrong-guess-${i}`, stranger)).status).toBe(400);
      }
      return email;
    }

    it('lets the owner in from a new address with the right password and the mailed link, once, and makes the address known', async () => {
      const email = await lockedAccount('203.0.113.20');
      // The failure that locked the account warned its owner, with no link in it.
      expect(await subjects(email)).toEqual([WARNING]);
      expect((await mails(email))[0]!.text_body).not.toContain(ADDRESS_LINK_PARAM);

      const owner = await signIn(email, PASSWORD, TRAVEL);
      expect([owner.status, owner.body?.code, owner.body?.message]).toEqual([429, NEW_ADDRESS_LINK_CODE, messages.newAddressLinkSent]);
      expect(Number(owner.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(await subjects(email)).toEqual([WARNING, LINK_MAIL]);
      const text = (await mails(email))[1]!.text_body;
      expect(text).toContain('Someone has been entering wrong passwords');
      expect(text).toContain(`address ${TRAVEL}`);
      const token = await mailedToken(email);
      // Only a hash of it is stored.
      const { rows } = await t.deps.db.query<{ token_hash: string; ip: string }>(
        `select l.token_hash, l.ip from nodeharbor.address_links l join auth.users u on u.id = l.user_id where u.email = $1`,
        [email],
      );
      expect(rows).toEqual([{ token_hash: createHash('sha256').update(token).digest('hex'), ip: TRAVEL }]);

      // From another address (a mail scanner, or whoever else holds the mail) it opens nothing, and is not spent.
      const elsewhere = await redeem(token, '203.0.113.20');
      expect([elsewhere.status, elsewhere.body?.code, elsewhere.body?.message]).toEqual([403, 'otp_expired', messages.addressLinkInvalid]);

      const traveller = browserAt(TRAVEL);
      const { data, error } = await traveller.auth.verifyOtp({ token_hash: token, type: 'email' });
      expect(error).toBeNull();
      expect(data.session?.user.email).toBe(email);
      expect(await knownAddresses(email)).toEqual([HOME, TRAVEL].sort());
      // A password sign-in's session, not a recovery link's: a new password still needs the current one.
      expect((await traveller.auth.updateUser({ password: 'a-new-passphrase-for-it' })).error?.code).toBe('current_password_required');

      // Once only.
      expect((await redeem(token, TRAVEL)).body?.code).toBe('otp_expired');
      // The address is known now: the password alone lets it in while the lock lasts.
      expect((await signIn(email, PASSWORD, TRAVEL)).status).toBe(200);
    });

    it('refuses a link past its time, and the address stays unknown', async () => {
      const email = await lockedAccount('203.0.113.21');
      expect((await signIn(email, PASSWORD, '198.51.100.51')).body?.code).toBe(NEW_ADDRESS_LINK_CODE);
      const token = await mailedToken(email);
      await t.deps.db.query(
        `update nodeharbor.address_links set expires_at = now() - interval '1 second' where user_id = (select id from auth.users where email = $1)`,
        [email],
      );
      const late = await redeem(token, '198.51.100.51');
      expect([late.status, late.body?.code]).toEqual([403, 'otp_expired']);
      expect(await knownAddresses(email)).toEqual([HOME]);
    });

    it('gives the stranger with a wrong password the same 429 and mails no link; an e-mail without an account answers alike', async () => {
      const stranger = '203.0.113.22';
      const email = await lockedAccount(stranger);
      const guesses = [await signIn(email, 'still-guessing', stranger), await signIn(email, 'another-guess', '203.0.113.23')];
      const right = await signIn(email, PASSWORD, '198.51.100.52');
      for (const g of guesses) expect([g.status, g.body]).toEqual([429, right.body]);
      // One link, the right password's; the guesses sent nothing.
      expect((await subjects(email)).filter((s) => s === LINK_MAIL)).toHaveLength(1);
      const { rows } = await t.deps.db.query(
        `select 1 from nodeharbor.address_links where user_id = (select id from auth.users where email = $1) and ip <> '198.51.100.52'`,
        [email],
      );
      expect(rows).toEqual([]);

      const ghost = `nobody${++n}@example.com`;
      for (let i = 0; i < AUTH_LIMITS.passwordFailuresPerEmail.max; i++) expect((await signIn(ghost, 'x-guess', '203.0.113.24')).status).toBe(400);
      const locked = await signIn(ghost, 'x-guess', '203.0.113.25');
      expect([locked.status, locked.body]).toEqual([429, right.body]);
      expect(await subjects(ghost)).toEqual([]);
    });

    it('mails the guessing warning once a day however often the lock engages, and at most 5 links an hour', async () => {
      const stranger = '203.0.113.26';
      const email = await lockedAccount(stranger);
      // The window passes and the stranger locks the account again.
      await t.deps.db.query(`update nodeharbor.rate_limits set window_start = window_start - interval '1 hour' where key = $1`, [
        `auth:passwordFailuresPerEmail:${email}`,
      ]);
      for (let i = 0; i < AUTH_LIMITS.passwordFailuresPerEmail.max; i++) expect((await signIn(email, `again-${i}`, '203.0.113.27')).status).toBe(400);
      expect((await signIn(email, 'again', '203.0.113.27')).body?.code).toBe(NEW_ADDRESS_LINK_CODE);
      expect(await subjects(email)).toEqual([WARNING]);
      // Someone who holds the password cannot flood the owner's mailbox with links either.
      for (let i = 0; i <= AUTH_LIMITS.addressLinkPerEmail.max; i++) {
        expect((await signIn(email, PASSWORD, `198.51.100.${60 + i}`)).body?.code).toBe(NEW_ADDRESS_LINK_CODE);
      }
      expect((await subjects(email)).filter((s) => s === LINK_MAIL)).toHaveLength(AUTH_LIMITS.addressLinkPerEmail.max);
    });

    it('gives an account with a second factor an aal1 session by the link: the address is known only after the factor', async () => {
      const email = await account();
      const home = browserAt(HOME);
      expect((await home.auth.signInWithPassword({ email, password: PASSWORD })).error).toBeNull();
      const { data: factor } = await home.auth.mfa.enroll({ factorType: 'totp' });
      const codes = authenticator(factor!.totp.secret);
      expect((await home.auth.mfa.challengeAndVerify({ factorId: factor!.id, code: codes.next() })).error).toBeNull();
      for (let i = 0; i < AUTH_LIMITS.passwordFailuresPerEmail.max; i++) expect((await signIn(email, `guess-${i}`, '203.0.113.28')).status).toBe(400);

      const travel = '198.51.100.70';
      expect((await signIn(email, PASSWORD, travel)).body?.code).toBe(NEW_ADDRESS_LINK_CODE);
      const owner = browserAt(travel);
      expect((await owner.auth.verifyOtp({ token_hash: await mailedToken(email), type: 'email' })).error).toBeNull();
      expect((await owner.auth.mfa.getAuthenticatorAssuranceLevel()).data).toMatchObject({ currentLevel: 'aal1', nextLevel: 'aal2' });
      expect(await knownAddresses(email)).toEqual([HOME]);
      expect((await owner.auth.mfa.challengeAndVerify({ factorId: factor!.id, code: codes.next() })).error).toBeNull();
      expect(await knownAddresses(email)).toEqual([HOME, travel].sort());
    });

    it("lets the signed-in owner change the password while strangers' failures lock the account; their own wrong ones are limited", async () => {
      const email = await account();
      const home = browserAt(HOME);
      expect((await home.auth.signInWithPassword({ email, password: PASSWORD })).error).toBeNull();
      for (let i = 0; i < AUTH_LIMITS.passwordFailuresPerEmail.max; i++) expect((await signIn(email, `guess-${i}`, '203.0.113.29')).status).toBe(400);
      const changed = 'owners-brand-new-passphrase-77';
      expect((await home.auth.updateUser({ password: changed, current_password: PASSWORD })).error).toBeNull();
      for (let i = 0; i < AUTH_LIMITS.currentPasswordFailuresPerUser.max; i++) {
        expect((await home.auth.updateUser({ password: 'yet-another-passphrase-88', current_password: `mistyped-${i}` })).error?.code).toBe(
          'current_password_invalid',
        );
      }
      expect((await home.auth.updateUser({ password: 'yet-another-passphrase-88', current_password: changed })).error?.status).toBe(429);
    });

    it('answers a link request it cannot use with a clear error, changing nothing', async () => {
      const counts = async () =>
        (await t.deps.db.query(`select (select count(*) from auth.sessions)::int as sessions, (select count(*) from nodeharbor.address_links)::int as links`))
          .rows[0];
      const before = await counts();
      expect((await authFetch(t, '/verify', { body: { type: 'email' } })).body).toMatchObject({
        code: 'validation_failed',
        message: 'Verify requires a token or a token hash',
      });
      expect((await authFetch(t, '/verify', { body: { type: 'sms', token_hash: 'x' } })).body).toMatchObject({
        code: 'validation_failed',
        message: 'Unsupported verification type',
      });
      const unknown = await authFetch(t, '/verify', { body: { type: 'email', token_hash: 'not-a-link' } });
      expect([unknown.status, unknown.body?.code, unknown.body?.message]).toEqual([403, 'otp_expired', messages.addressLinkInvalid]);
      expect((await authFetch(t, '/verify', { body: { type: 'magiclink', token_hash: 'x' } })).status).toBe(403);
      expect((await authFetch(t, '/verify', { body: { type: 'email', token_hash: 42 } })).body?.code).toBe('bad_json');
      expect((await authFetch(t, '/verify', { body: { type: 'email', token_hash: 'a\u0000b' } })).status).toBe(400);
      expect((await authFetch(t, '/verify', { body: { type: 'email', token_hash: 'x'.repeat(100_000) } })).body?.code).toBe('otp_expired');
      expect(await counts()).toEqual(before);
    });
  });

  it('a password alone does not make an address known to an account with a second factor', async () => {
    const email = await account();
    const owner = browserAt(HOME);
    expect((await owner.auth.signInWithPassword({ email, password: PASSWORD })).error).toBeNull();
    const { data: factor } = await owner.auth.mfa.enroll({ factorType: 'totp' });
    const codes = authenticator(factor!.totp.secret);
    expect((await owner.auth.mfa.challengeAndVerify({ factorId: factor!.id, code: codes.next() })).error).toBeNull();
    expect((await signIn(email, PASSWORD, ATTACKER)).status).toBe(200);
    const { rows } = await t.deps.db.query<{ ip: string }>(`select k.ip from auth.known_addresses k join auth.users u on u.id = k.user_id where u.email = $1`, [
      email,
    ]);
    expect(rows.map((r) => r.ip)).toEqual([HOME]);
  });
});
