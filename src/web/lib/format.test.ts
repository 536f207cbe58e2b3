import { describe, expect, it } from 'vitest';
import { makeFormatters } from './format';

const DAY = 86_400_000;

describe('formatters of the user language and time zone', () => {
  it('says renewals in days, as the spec example "Renews in 30 days"', () => {
    const f = makeFormatters({ language: 'en-US', timeZone: 'UTC' });
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(f.relative(new Date(now + 30 * DAY).toISOString(), now)).toBe('in 30 days');
    expect(f.relative(new Date(now - 2 * DAY).toISOString(), now)).toBe('2 days ago');
    expect(f.relative(new Date(now + 3 * 3_600_000).toISOString(), now)).toBe('in 3 hours');
    expect(f.relative(new Date(now + 400 * DAY).toISOString(), now)).toBe('in 1 year');
  });

  it('formats money and dates in the chosen language and time zone', () => {
    const de = makeFormatters({ language: 'de', timeZone: 'Asia/Tokyo' });
    expect(de.money(1234.5)).toBe(new Intl.NumberFormat('de', { style: 'currency', currency: 'USD' }).format(1234.5));
    expect(de.money(1234.5)).toMatch(/^1\.234,50\s\$$/);
    // 23:30 UTC on 31 December is already 1 January in Tokyo.
    expect(de.date('2025-12-31T23:30:00Z')).toBe('01.01.2026');
    expect(makeFormatters({ language: 'en-GB', timeZone: 'UTC' }).date('2025-12-31T23:30:00Z')).toBe('31 Dec 2025');
  });

  it('names a UTC calendar day in the chosen language, whatever the time zone', () => {
    // Midnight UTC is still the day before in Los Angeles: a UTC day must not move with the zone.
    const us = makeFormatters({ language: 'en-US', timeZone: 'America/Los_Angeles' });
    expect(us.day('2026-11-28')).toBe('Nov 28, 2026');
    expect(us.shortDay('2026-11-28')).toBe('Nov 28');
    const de = makeFormatters({ language: 'de', timeZone: 'Asia/Tokyo' });
    expect(de.day('2026-11-28')).toBe('28.11.2026');
    expect(makeFormatters({ language: 'en-GB', timeZone: 'Pacific/Kiritimati' }).day('2026-01-01')).toBe('1 Jan 2026');
  });
});
