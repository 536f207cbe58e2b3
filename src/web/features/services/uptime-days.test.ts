import { describe, expect, it } from 'vitest';
import { makeFormatters } from '../../lib/format';
import type { UptimeDay } from './api/get-service-uptime';
import { uptimeSlots } from './uptime-days';

const f = makeFormatters({ language: 'en-GB', timeZone: 'America/New_York' });
// 10:00 UTC on 28 November 2026.
const asOf = Date.parse('2026-11-28T10:00:00Z');
const row = (day: string, seconds: number, met: boolean | null): UptimeDay => ({
  day,
  seconds_online: seconds,
  seconds_observed: seconds,
  threshold_seconds: met === null ? null : 8 * 3600,
  meets_threshold: met,
  reward_rule: met === null ? 'continuous' : 'daily_threshold',
  longest_streak_seconds: 0,
});

describe('the uptime chart’s days', () => {
  it('shows 30 days for an older service, the last one today without a verdict, named in the customer’s format', () => {
    const days = [row('2026-11-27', 9 * 3600, true), row('2026-11-26', 3600, false), row('2026-11-28', 8.5 * 3600, true)];
    const { slots, offset } = uptimeSlots(days, { asOf, createdAt: '2026-01-01T00:00:00Z', f });
    expect(offset).toBe(0);
    expect(slots).toHaveLength(30);
    expect(slots[0]!.label).toBe('30 Oct 2026: no data');
    expect(slots.slice(-3).map((s) => [s.label, s.today])).toEqual([
      ['26 Nov 2026: 1h 0m online, threshold missed', false],
      ['27 Nov 2026: 9h 0m online, threshold met', false],
      // Met by the database's count, but the day is not over: progress, not a verdict.
      ['Today, 28 Nov 2026: 8h 30m online so far', true],
    ]);
  });

  it('leaves out the days before the service existed, keeping each day in its place', () => {
    // Created late on 26 November (UTC): its first day is the 26th, whatever the customer's zone.
    const { slots, offset } = uptimeSlots([row('2026-11-27', 7200, null)], { asOf, createdAt: '2026-11-26T23:30:00Z', f });
    expect(offset).toBe(27);
    expect(slots.map((s) => s.label)).toEqual(['26 Nov 2026: no data', '27 Nov 2026: 2h 0m online', 'Today, 28 Nov 2026: no data yet']);
    const fresh = uptimeSlots([], { asOf, createdAt: '2026-11-28T09:00:00Z', f });
    expect(fresh.offset).toBe(29);
    expect(fresh.slots.map((s) => s.label)).toEqual(['Today, 28 Nov 2026: no data yet']);
  });
});
