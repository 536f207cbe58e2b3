import { bytesPerSecondText, mebibytesText, NO_USAGE_YET, percentText, USAGE_RANGE_LABELS, USAGE_RANGES, type UsageRange } from '@shared/node-usage';
import { Spinner } from '@/components/ui/spinner';
import { Tabs } from '@/components/ui/tabs';
import { useFormat } from '@/lib/format';
import { useServiceUsage, type UsagePoint } from '../api/get-service-usage';

const WIDTH = 300;
const HEIGHT = 60;

/** A line through `values` scaled to `max`, as an SVG path over WIDTH × HEIGHT. */
function linePath(values: number[], max: number): string {
  const step = values.length > 1 ? WIDTH / (values.length - 1) : 0;
  return values.map((v, i) => `${i === 0 ? 'M' : 'L'}${(i * step).toFixed(1)},${(HEIGHT - (Math.min(v, max) / max) * HEIGHT).toFixed(1)}`).join(' ');
}

type Series = { values: number[]; className: string };

/**
 * One small chart: its lines as a picture, and what a reader needs in words beside it (the latest
 * value and the peak), which is also the picture's name for a screen reader.
 */
function Sparkline({ title, series, max, summary }: { title: string; series: Series[]; max: number; summary: string }) {
  return (
    <figure className="space-y-1">
      <figcaption className="flex flex-wrap justify-between gap-x-2 text-sm">
        <span className="font-medium">{title}</span>
        <span className="text-muted-foreground">{summary}</span>
      </figcaption>
      <svg
        viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
        preserveAspectRatio="none"
        role="img"
        aria-label={`${title}: ${summary}`}
        className="h-16 w-full rounded-md bg-muted/40"
      >
        {series.map((s, i) => (
          <path key={i} d={linePath(s.values, max)} fill="none" strokeWidth={1.5} vectorEffect="non-scaling-stroke" className={s.className} />
        ))}
      </svg>
    </figure>
  );
}

const peak = (values: number[]) => values.reduce((a, b) => Math.max(a, b), 0);

function UsagePanel({ serviceId, range }: { serviceId: string; range: UsageRange }) {
  const usage = useServiceUsage(serviceId, range);
  const f = useFormat();
  if (usage.isPending) return <Spinner label="Loading usage" />;
  if (usage.isError) return <p className="text-sm text-destructive">Could not load usage. Please try again.</p>;
  const points: UsagePoint[] = usage.data;
  if (points.length === 0) return <p className="text-sm text-muted-foreground">{NO_USAGE_YET}</p>;
  const last = points[points.length - 1]!;
  const cpu = points.map((p) => p.cpu_percent);
  const memory = points.map((p) => p.memory_mib);
  const rx = points.map((p) => p.rx_bytes_per_second);
  const tx = points.map((p) => p.tx_bytes_per_second);
  const limit = last.memory_limit_mib;
  return (
    <div className="space-y-4">
      <p className="text-xs text-muted-foreground">
        {points.length} {range === '24h' ? 'one-minute' : 'one-hour'} points, from {f.dateTime(points[0]!.at)} to {f.dateTime(last.at)}
      </p>
      <div className="grid grid-cols-1 gap-4 md:grid-cols-3">
        <Sparkline
          title="CPU"
          series={[{ values: cpu, className: 'stroke-primary' }]}
          max={Math.max(100, peak(cpu))}
          summary={`${percentText(last.cpu_percent)} now, peak ${percentText(peak(cpu))}`}
        />
        <Sparkline
          title="Memory"
          series={[{ values: memory, className: 'stroke-primary' }]}
          max={Math.max(limit ?? 0, peak(memory), 1)}
          summary={`${mebibytesText(last.memory_mib)}${limit ? ` of ${mebibytesText(limit)}` : ''} now, peak ${mebibytesText(peak(memory))}`}
        />
        <Sparkline
          title="Network"
          series={[
            { values: rx, className: 'stroke-primary' },
            { values: tx, className: 'stroke-muted-foreground' },
          ]}
          max={Math.max(peak(rx), peak(tx), 1)}
          summary={`in ${bytesPerSecondText(last.rx_bytes_per_second)}, out ${bytesPerSecondText(last.tx_bytes_per_second)} now`}
        />
      </div>
    </div>
  );
}

/** What the node uses (issue 36, item 2): CPU, memory and network, over the last 24 hours or 30 days. */
export function UsageCharts({ serviceId }: { serviceId: string }) {
  return (
    <Tabs
      label="Usage period"
      defaultValue="24h"
      lazy
      tabs={USAGE_RANGES.map((range) => ({ value: range, label: USAGE_RANGE_LABELS[range], content: <UsagePanel serviceId={serviceId} range={range} /> }))}
    />
  );
}
