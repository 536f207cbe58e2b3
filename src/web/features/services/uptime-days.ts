import { durationText, thresholdVerdict, UPTIME_DAYS_SHOWN } from '@shared/node-health';
import type { Formatters } from '@/lib/format';
import type { UptimeDay } from './api/get-service-uptime';

/** The UTC day `daysAgo` days before `now`, as YYYY-MM-DD. */
export const utcDay = (now: number, daysAgo = 0) => new Date(now - daysAgo * 86_400_000).toISOString().slice(0, 10);

/** One UTC day of the uptime chart, named as a screen reader reads its bar. */
export type UptimeSlot = { day: string; row: UptimeDay | undefined; today: boolean; label: string };

/**
 * The chart's days: the last UPTIME_DAYS_SHOWN UTC days up to today (of `asOf`), from the service's
 * first UTC day on, since the days before it existed have nothing to tell. Today is named as such
 * and has no verdict yet: the day is not over. `offset` is how many of the UPTIME_DAYS_SHOWN places
 * before the first day stay empty, so that a day keeps its place on the axis whatever the service's age.
 */
export function uptimeSlots(
  days: UptimeDay[],
  { asOf, createdAt, f }: { asOf: number; createdAt: string; f: Pick<Formatters, 'day'> },
): { slots: UptimeSlot[]; offset: number } {
  const byDay = new Map(days.map((d) => [d.day, d]));
  const today = utcDay(asOf);
  const created = Date.parse(createdAt);
  // An unreadable date shows the whole window rather than none of it.
  const first = Number.isNaN(created) ? '' : utcDay(created);
  const slots: UptimeSlot[] = [];
  for (let ago = UPTIME_DAYS_SHOWN - 1; ago >= 0; ago--) {
    const day = utcDay(asOf, ago);
    if (day < first) continue;
    const row = byDay.get(day);
    slots.push({ day, row, today: day === today, label: slotLabel(day, row, day === today, f) });
  }
  return { slots, offset: UPTIME_DAYS_SHOWN - slots.length };
}

function slotLabel(day: string, row: UptimeDay | undefined, today: boolean, f: Pick<Formatters, 'day'>): string {
  if (today) return `Today, ${f.day(day)}: ${row ? `${durationText(row.seconds_online)} online so far` : 'no data yet'}`;
  if (!row) return `${f.day(day)}: no data`;
  const verdict = row.meets_threshold === null ? '' : `, threshold ${thresholdVerdict(row.meets_threshold)}`;
  return `${f.day(day)}: ${durationText(row.seconds_online)} online${verdict}`;
}
