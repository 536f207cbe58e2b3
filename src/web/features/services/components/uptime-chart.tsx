import { thresholdText, UPTIME_DAYS_SHOWN } from '@shared/node-health';
import { useFormat } from '@/lib/format';
import { cn } from '@/lib/utils';
import type { UptimeDay } from '../api/get-service-uptime';
import { uptimeSlots, type UptimeSlot } from '../uptime-days';

const DAY_SECONDS = 86_400;
const percentOfDay = (seconds: number) => `${(Math.min(seconds, DAY_SECONDS) / DAY_SECONDS) * 100}%`;
// A few minutes online are a fraction of a pixel: a minute or more (what the label can say) shows at least this much.
const MIN_BAR = '3px';

const fillColour = (s: UptimeSlot) =>
  // Today has no verdict yet (the day is not over), nor has a network without a daily threshold.
  s.today || s.row?.meets_threshold === null ? 'bg-primary' : s.row?.meets_threshold ? 'bg-green-600' : 'bg-yellow-500';

/**
 * The service's last UPTIME_DAYS_SHOWN UTC days, from the day it was created, as bars (seconds
 * online / a day), with the reward threshold as a dashed line. Each bar is an image named by its
 * day in the customer's format and its value, so a screen reader reads the days one by one; a day
 * without samples is an empty, dashed slot, and today is outlined, so that it shows before the
 * node has been online long.
 */
export function UptimeChart({ days, threshold, asOf, createdAt }: { days: UptimeDay[]; threshold: number | null; asOf: number; createdAt: string }) {
  const f = useFormat();
  const { slots, offset } = uptimeSlots(days, { asOf, createdAt, f });
  const first = slots[0]!;
  return (
    <figure className="space-y-2">
      <figcaption className="text-sm text-muted-foreground">
        {offset === 0 ? `Time online per UTC day, last ${UPTIME_DAYS_SHOWN} days` : `Time online per UTC day, since ${f.day(first.day)}`}
      </figcaption>
      <div className="relative h-40">
        <div className="flex h-full items-end gap-0.5 sm:gap-1">
          {/* The days before the service existed keep their places, empty, so that a day sits where it will sit tomorrow. */}
          {offset > 0 && <div aria-hidden="true" className="h-full" style={{ flexGrow: offset, flexBasis: 0 }} />}
          {slots.map((s) => (
            <div
              key={s.day}
              role="img"
              aria-label={s.label}
              title={s.label}
              data-today={s.today || undefined}
              className={cn(
                'relative h-full min-w-0 flex-1 rounded-sm',
                s.row ? 'bg-muted' : 'border border-dashed border-border',
                s.today && 'outline outline-2 outline-offset-1 outline-primary',
              )}
            >
              {s.row && s.row.seconds_online >= 60 && (
                <div
                  className={cn('absolute inset-x-0 bottom-0 rounded-sm', fillColour(s))}
                  style={{ height: `max(${percentOfDay(s.row.seconds_online)}, ${MIN_BAR})` }}
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
      {/* Under the bars they name: the first day shown from its own place, today at the end. */}
      <div className="flex justify-end text-xs text-muted-foreground" aria-hidden="true">
        <div className="flex min-w-max justify-between gap-2" style={{ width: `${(slots.length / UPTIME_DAYS_SHOWN) * 100}%` }}>
          {!first.today && <span>{f.shortDay(first.day)}</span>}
          <span>Today</span>
        </div>
      </div>
      {threshold !== null && (
        <p className="text-xs text-muted-foreground">The dashed line is the reward threshold: {thresholdText(threshold)} online per UTC day.</p>
      )}
    </figure>
  );
}
