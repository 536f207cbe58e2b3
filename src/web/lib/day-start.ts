/**
 * The instant (ISO) a calendar day ("2026-03-08") begins in a time zone: a date filter's bound.
 * Its own module, out of format.tsx, which every page loads.
 */
export function dayStart(day: string, timeZone: string): string {
  const [y, m, d] = day.split('-').map(Number) as [number, number, number];
  const midnight = Date.UTC(y, m - 1, d);
  // The zone's offset where the day begins; a second look settles a day whose offset changes before it begins.
  const first = midnight - offsetAt(midnight, timeZone);
  return new Date(midnight - offsetAt(first, timeZone)).toISOString();
}

/** The calendar day after `day` ("2026-02-28" → "2026-03-01"): a "to" day's end is the next day's start. */
export function nextDay(day: string): string {
  const [y, m, d] = day.split('-').map(Number) as [number, number, number];
  return new Date(Date.UTC(y, m - 1, d + 1)).toISOString().slice(0, 10);
}

/** How far ahead of UTC a time zone's clocks are at instant `t` (ms), read back from how the zone shows `t`. */
function offsetAt(t: number, timeZone: string): number {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
  }).formatToParts(new Date(t));
  const n = (type: Intl.DateTimeFormatPartTypes) => Number(parts.find((p) => p.type === type)!.value);
  return Date.UTC(n('year'), n('month') - 1, n('day'), n('hour'), n('minute'), n('second')) - (t - (t % 1000));
}
