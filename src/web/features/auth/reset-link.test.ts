import { describe, expect, it } from 'vitest';
import { parseResetLink } from './reset-link';

describe('parseResetLink', () => {
  it('accepts both tokens with type=recovery', () => {
    expect(parseResetLink('#access_token=a&refresh_token=r&type=recovery&expires_in=3600')).toEqual({ ok: true, accessToken: 'a', refreshToken: 'r' });
  });

  it.each([
    ['#refresh_token=r&type=recovery', null],
    ['#access_token=a&type=recovery', null],
    ['#access_token=a&refresh_token=r&type=signup', null],
    ['', null],
    ['#error=access_denied&error_code=otp_expired&error_description=Email+link+is+invalid+or+has+expired', 'Email link is invalid or has expired'],
  ])('refuses %s', (hash, error) => {
    expect(parseResetLink(hash)).toEqual({ ok: false, error });
  });
});
