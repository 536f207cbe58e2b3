import { describe, expect, it } from 'vitest';
import { locationName } from './machine-locations';

describe('locationName', () => {
  it('names a known location by its city and code, and any other by its code alone', () => {
    expect(locationName('fsn1')).toBe('Falkenstein, Germany (fsn1)');
    expect(locationName('hel1')).toBe('Helsinki, Finland (hel1)');
    expect(locationName('xyz9')).toBe('xyz9');
    expect(locationName('constructor')).toBe('constructor');
  });
});
