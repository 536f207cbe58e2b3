import { describe, expect, it } from 'vitest';
import { isDevHost } from './dev-host';

describe('isDevHost', () => {
  it('matches a host ending with a configured suffix, in any case', () => {
    expect(isDevHost('preview.lovableproject.com', ['.lovableproject.com'])).toBe(true);
    expect(isDevHost('ABC.LovableProject.com', ['.lovableproject.com'])).toBe(true);
  });

  it('does not match other hosts, or when no suffix is configured', () => {
    expect(isDevHost('nodeharbor.io', ['.lovableproject.com'])).toBe(false);
    expect(isDevHost('lovableproject.com.evil.io', ['.lovableproject.com'])).toBe(false);
    expect(isDevHost('preview.lovableproject.com', [])).toBe(false);
  });
});
