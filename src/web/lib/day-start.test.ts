import { describe, expect, it } from 'vitest';
import { dayStart, nextDay } from './day-start';

describe('dayStart', () => {
  it("tells when a calendar day begins in the user's time zone, across a change of clocks", () => {
    expect(dayStart('2026-03-08', 'UTC')).toBe('2026-03-08T00:00:00.000Z');
    // New York moves its clocks forward at 2:00 on 8 March 2026: the day begins at -05:00, the next at -04:00.
    expect(dayStart('2026-03-08', 'America/New_York')).toBe('2026-03-08T05:00:00.000Z');
    expect(dayStart('2026-03-09', 'America/New_York')).toBe('2026-03-09T04:00:00.000Z');
    expect(dayStart('2026-01-01', 'Asia/Tokyo')).toBe('2025-12-31T15:00:00.000Z');
    expect(dayStart('2026-04-05', 'Australia/Sydney')).toBe('2026-04-04T13:00:00.000Z');
  });

  it('tells the next calendar day, across a month and a year', () => {
    expect(nextDay('2026-02-28')).toBe('2026-03-01');
    expect(nextDay('2028-02-28')).toBe('2028-02-29');
    expect(nextDay('2026-12-31')).toBe('2027-01-01');
  });
});
