import { durationText, UPTIME_DAYS_SHOWN } from '@shared/node-health';
import { cn } from '@/lib/utils';
import { utcDay, type UptimeDay } from '../api/get-service-uptime';

const DAY_SECONDS = 86_400;
const percentOfDay = (seconds: number) => `${(Math.min(seconds, DAY_SECONDS) / DAY_SECONDS) * 100}%`;

/**
 * The last UPTIME_DAYS_SHOWN UTC days as bars (seconds online / a day), with the reward threshold
 * as a dashed line. Each bar is an image named by its day and value, so a screen reader reads the
 * days one by one; a day without samples is an empty, dashed slot.
 */
export function UptimeChart({ days, threshold, asOf }: { days: UptimeDay[]; threshold: number | null; asOf: number }) {
  const byDay = new Map(days.map((d) => [d.day, d]));
  const slots = Array.from({ length: UPTIME_DAYS_SHOWN }, (_, i) => {
    const day = utcDay(asOf, UPTIME_DAYS_SHOWN - 1 - i);
    const row = byDay.get(day);
    if (!row) return { day, row, label: `${day}: no data` };
    const verdict = row.meets_threshold === null ? '' : row.meets_threshold ? ', threshold met' : ', threshold not met';
    return { day, row, label: `${day}: ${durationText(row.seconds_online)} online${verdict}` };
  });
  return (
    <figure className="space-y-2">
      <figcaption className="text-sm text-muted-foreground">Time online per UTC day, last {UPTIME_DAYS_SHOWN} days</figcaption>
      <div className="relative h-40">
        <div className="flex h-full items-end gap-0.5 sm:gap-1">
          {slots.map(({ day, row, label }) => (
            <div
              key={day}
              role="img"
              aria-label={label}
              title={label}
              className={cn('relative h-full min-w-0 flex-1 rounded-sm', row ? 'bg-muted' : 'border border-dashed border-border')}
            >
              {row && (
                <div
                  className={cn(
                    'absolute inset-x-0 bottom-0 rounded-sm',
                    row.meets_threshold === null ? 'bg-primary' : row.meets_threshold ? 'bg-green-600' : 'bg-yellow-500',
                  )}
                  style={{ height: percentOfDay(row.seconds_online) }}
                />
              )}
            </div>
          ))}
        </div>
        {threshold !== null && (
          <div
            aria-hidden="true"
            data-testid="threshold-line"
            className="pointer-events-none absolute inset-x-0 border-t-2 border-dashed border-foreground/70"
            style={{ bottom: percentOfDay(threshold) }}
          />
        )}
      </div>
      <div className="flex justify-between text-xs text-muted-foreground" aria-hidden="true">
        <span>{slots[0]!.day}</span>
        <span>Today</span>
      </div>
      {threshold !== null && (
        <p className="text-xs text-muted-foreground">The dashed line is the reward threshold: {durationText(threshold)} online per UTC day.</p>
      )}
    </figure>
  );
}
