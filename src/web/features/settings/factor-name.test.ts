import { describe, expect, it } from 'vitest';
import { DEFAULT_FACTOR_NAME, factorLabel, factorNameToEnrol } from './factor-name';

describe('authenticator names', () => {
  it('enrols under the typed name, trimmed, or "Authenticator app" when none is typed', () => {
    expect(factorNameToEnrol('  Work phone ')).toBe('Work phone');
    expect(factorNameToEnrol('   ')).toBe(DEFAULT_FACTOR_NAME);
    expect(DEFAULT_FACTOR_NAME).toBe('Authenticator app');
  });

  it('shows a factor by its own name, and the unnamed and timestamp-named ones as "Authenticator app"', () => {
    expect(factorLabel('Work phone')).toBe('Work phone');
    expect(factorLabel('Authenticator 2025-01-31T09:30')).toBe('Authenticator app');
    expect(factorLabel(undefined)).toBe('Authenticator app');
    expect(factorLabel('')).toBe('Authenticator app');
    // Only the exact old pattern: a name the user chose that mentions a date stays.
    expect(factorLabel('Authenticator 2025-01-31')).toBe('Authenticator 2025-01-31');
  });
});
