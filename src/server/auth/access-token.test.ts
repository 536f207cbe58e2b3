import { decodeJwt } from 'jose';
import { describe, expect, it } from 'vitest';
import { signAccessToken } from './access-token';
import { createKeys } from './tokens';
import type { UserRow } from './users';

describe('an access token', () => {
  // Issue 42: a restored row said service_role, and its owner's password sign-in returned a service_role token.
  it("says role authenticated whatever the user's row says", async () => {
    const keys = await createKeys('access-token-test-secret-that-is-long-enough-0123', 'http://127.0.0.1:8080/auth/v1');
    const user = { id: '00000000-0000-4000-8000-000000000001', aud: 'authenticated', role: 'service_role', email: 'mallory@nodeharbor.test' } as UserRow;
    const { token } = await signAccessToken(keys, 3600, user, { id: '00000000-0000-4000-8000-000000000002', aal: 'aal1', amr: [] });
    expect(decodeJwt(token)).toMatchObject({ sub: user.id, role: 'authenticated' });
  });
});
