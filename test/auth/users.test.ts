import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/server/db/database';
import { createUser, findUserByEmail, findUserById, setPassword } from '../../src/server/auth/users';
import { passwordCost, verifyPassword } from '../../src/server/auth/passwords';
import { createTestDatabase, type TestDatabase } from '../helpers/database';

describe('users', () => {
  let t: TestDatabase;
  let db: Database;
  beforeAll(async () => {
    t = await createTestDatabase();
    db = t.db;
  });
  afterAll(async () => {
    await db.close();
    await t.drop();
  });

  it('creates a confirmed user with metadata and its email identity', async () => {
    const u = await createUser(db, { email: ' Ada@Example.COM ', password: 'quiet-secret-one', fullName: 'Ada Lovelace' });
    expect(u.email).toBe('ada@example.com');
    expect(u.email_confirmed_at).toBeInstanceOf(Date);
    expect(u.raw_user_meta_data).toEqual({ full_name: 'Ada Lovelace', email_verified: true });
    expect(u.raw_app_meta_data).toEqual({ provider: 'email', providers: ['email'] });
    const { rows } = await db.query<{ encrypted_password: string; provider: string; provider_id: string; identity_data: unknown }>(
      `select u.encrypted_password, i.provider, i.provider_id, i.identity_data
       from auth.users u join auth.identities i on i.user_id = u.id where u.id = $1`,
      [u.id],
    );
    expect(rows).toHaveLength(1);
    // At the cost hashes are made at: the production cost's own test is in passwords.test.ts.
    expect(rows[0]!.encrypted_password).toMatch(new RegExp(`^\\$2a\\$${String(passwordCost()).padStart(2, '0')}\\$`));
    expect(rows[0]!.provider).toBe('email');
    expect(rows[0]!.provider_id).toBe(u.id);
    expect(rows[0]!.identity_data).toMatchObject({ sub: u.id, email: 'ada@example.com', full_name: 'Ada Lovelace' });
    expect((await findUserByEmail(db, 'ADA@example.com'))?.id).toBe(u.id);
    expect((await findUserById(db, u.id))?.email).toBe('ada@example.com');
    expect(await findUserById(db, 'not-a-uuid')).toBeNull();
  });

  it('can create an unconfirmed user', async () => {
    const u = await createUser(db, { email: 'later@example.com', password: 'quiet-secret-one', confirmed: false });
    expect(u.email_confirmed_at).toBeNull();
    expect(u.raw_user_meta_data).toEqual({});
  });

  it('refuses a duplicate, a bad address and a weak password, writing nothing', async () => {
    await expect(createUser(db, { email: 'ada@example.com', password: 'quiet-secret-one' })).rejects.toMatchObject({
      status: 422,
      code: 'user_already_exists',
    });
    await expect(createUser(db, { email: 'nope', password: 'quiet-secret-one' })).rejects.toMatchObject({ status: 400, code: 'validation_failed' });
    await expect(createUser(db, { email: 'weak@example.com', password: '123' })).rejects.toMatchObject({ status: 422, code: 'weak_password' });
    // The CLI and the admin account go through createUser too: a common password is refused there.
    await expect(createUser(db, { email: 'weak@example.com', password: 'football' })).rejects.toMatchObject({
      status: 422,
      code: 'weak_password',
      extra: { weak_password: { reasons: ['pwned'] } },
    });
    expect(await findUserByEmail(db, 'weak@example.com')).toBeNull();
    const { rows } = await db.query<{ n: number }>(`select count(*)::int as n from auth.users`);
    expect(rows[0]!.n).toBe(2);
  });

  it('sets a new password', async () => {
    const u = (await findUserByEmail(db, 'ada@example.com'))!;
    await setPassword(db, u.id, 'another-quiet-secret');
    const { rows } = await db.query<{ encrypted_password: string }>(`select encrypted_password from auth.users where id = $1`, [u.id]);
    expect(await verifyPassword('another-quiet-secret', rows[0]!.encrypted_password)).toBe(true);
    await expect(setPassword(db, u.id, '1')).rejects.toMatchObject({ code: 'weak_password' });
  });
});
