import { durationText, thresholdDayText, thresholdProgressText } from '@shared/node-health';
import { locationName } from '@shared/machine-locations';
import { parseProperties } from '@shared/validation';
import { ArrowLeft } from 'lucide-react';
import type { ReactNode } from 'react';
import { Link, useNavigate } from 'react-router';
import { Card } from '@/components/ui/card';
import { Spinner } from '@/components/ui/spinner';
import { paths } from '@/config/paths';
import { useFormat } from '@/lib/format';
import { Seo } from '@/lib/seo';
import { useRestartCount } from '../api/get-restart-count';
import { useService } from '../api/get-service';
import { useServiceEvents } from '../api/get-service-events';
import { useServiceUptime, type UptimeDay } from '../api/get-service-uptime';
import type { Service } from '../api/types';
import { serviceEventText } from '@shared/service-events';
import { canSetAutoRenew, displayStatus, isServiceId, retryCharge } from '../service-status';
import { utcDay } from '../uptime-days';
import { AutoRenewSwitch } from './auto-renew-switch';
import { FailureNote } from './failure-note';
import { MaskedKey } from './masked-key';
import { NodeStatus } from './node-status';
import { ServicePowerActions } from './power-actions';
import { RefundedNote } from './refunded-note';
import { RenewalTopUp } from './renewal-top-up';
import { RetryInstallButton } from './retry-install-button';
import { ServiceActionsMenu } from './service-actions-menu';
import { RenewalBadge, StatusBadge } from './status-badges';
import { UptimeChart } from './uptime-chart';
import { UsageCharts } from './usage-charts';

const backLink = (
  <Link to={paths.dashboardServices} className="inline-flex items-center gap-1 text-sm text-primary hover:underline">
    <ArrowLeft className="size-4" aria-hidden="true" /> Back to Services
  </Link>
);

/** The browser tab names the service, or says what the page shows instead. */
const title = (serviceId: string, name: string) => (
  <Seo title={name} description="One of your NodeHarbor services." path={paths.dashboardService(serviceId)} noindex />
);

const notFound = (serviceId: string) => (
  <Card className="space-y-2 py-12 text-center">
    {title(serviceId, 'Service not found')}
    <h2 className="text-lg font-semibold">Service not found</h2>
    <p className="text-sm text-muted-foreground">There is no such service among yours. It may have been deleted.</p>
    {backLink}
  </Card>
);

type Props = { serviceId: string; userEmail: string; logs: (service: Service) => ReactNode };

/**
 * One service's page: what the card shows (plan, status, renewal, key, Extend and Delete), its node
 * now, uptime today and over the last days by its network's reward rule, restarts, and its
 * event history. Everything is read again every NODE_POLL_MS while the page is open. `logs` renders
 * the Logs button (another feature's, composed in by the route).
 */
export function ServiceDetails(props: Props) {
  return isServiceId(props.serviceId) ? <Details {...props} /> : notFound(props.serviceId);
}

/**
 * A network that rewards continuous uptime (Gala's): the run the node is on now, and the longest
 * within today (UTC), with no daily bar to pass. The current streak counts to the last poll.
 */
function Streaks({ service, today, asOf }: { service: Service; today: UptimeDay | undefined; asOf: number }) {
  const since = service.node_state === 'online' && service.online_since ? Date.parse(service.online_since) : NaN;
  const current = Number.isNaN(since) ? null : Math.max(0, (asOf - since) / 1000);
  const midnight = Date.parse(`${utcDay(asOf)}T00:00:00Z`);
  const currentToday = current === null ? 0 : (asOf - Math.max(since, midnight)) / 1000;
  const longest = Math.max(today?.longest_streak_seconds ?? 0, currentToday);
  return (
    <div className="mt-1 space-y-1 text-sm">
      <p>Online streak: {current === null ? 'not online now' : durationText(current)}</p>
      <p>Longest streak today: {durationText(longest)}</p>
      <p className="text-muted-foreground">This network rewards continuous uptime, with no daily minimum.</p>
    </div>
  );
}

/**
 * A network with a daily threshold (Playa3ull's): today's progress toward it, since a node can
 * still reach it or fall short before midnight UTC, and yesterday's verdict, the day being over.
 */
function ThresholdProgress({ days, threshold, asOf, createdAt }: { days: UptimeDay[]; threshold: number; asOf: number; createdAt: string }) {
  const online = days.find((d) => d.day === utcDay(asOf))?.seconds_online ?? 0;
  const yesterday = utcDay(asOf, 1);
  const row = days.find((d) => d.day === yesterday);
  // Yesterday is told only if the service existed then.
  const existed = utcDay(Date.parse(createdAt) || 0) <= yesterday;
  const progress = thresholdProgressText(online, threshold);
  return (
    <div className="mt-2 space-y-2 text-sm">
      <div
        role="progressbar"
        aria-label="Toward today's reward threshold"
        aria-valuemin={0}
        aria-valuemax={threshold}
        aria-valuenow={Math.min(online, threshold)}
        aria-valuetext={progress}
        className="h-2 overflow-hidden rounded-full bg-muted"
      >
        <div className="h-full rounded-full bg-primary" style={{ width: `${Math.min(online / threshold, 1) * 100}%` }} />
      </div>
      <p>{progress}</p>
      {existed && (
        <p className="text-muted-foreground">
          Yesterday: {row?.meets_threshold != null ? thresholdDayText(row.seconds_online, threshold, row.meets_threshold) : 'no data'}
        </p>
      )}
    </div>
  );
}

function Details({ serviceId, userEmail, logs }: Props) {
  const f = useFormat();
  const navigate = useNavigate();
  const service = useService(serviceId);
  const uptime = useServiceUptime(serviceId);
  const restarts = useRestartCount(serviceId);
  const events = useServiceEvents(serviceId);
  const queries = [service, uptime, restarts, events];

  if (queries.some((q) => q.isPending))
    return (
      <>
        {title(serviceId, 'Services')}
        <Spinner label="Loading service..." />
      </>
    );
  // A failed poll keeps what was shown; only a first read that failed has nothing to show.
  if (service.data === undefined || uptime.data === undefined || restarts.data === undefined || events.data === undefined)
    return (
      <>
        {title(serviceId, 'Services')}
        <p role="alert" className="py-8 text-center text-destructive">
          Failed to load the service.
        </p>
      </>
    );
  if (service.data === null) return notFound(serviceId);

  const { service: svc, product } = service.data;
  const status = displayStatus(svc);
  const keyLabel = parseProperties(product?.properties)?.data_name || 'API Key';
  const today = utcDay(uptime.dataUpdatedAt);
  const todayRow = uptime.data.find((d) => d.day === today);
  // The rows carry the threshold and rule even for a plan no longer on sale (whose row the API does not show).
  const threshold = uptime.data[0]?.threshold_seconds ?? product?.uptime_threshold_seconds ?? null;
  const rule = uptime.data[0]?.reward_rule ?? product?.reward_rule ?? 'continuous';
  const onlineToday = todayRow?.seconds_online ?? 0;

  return (
    <div className="space-y-6">
      {title(serviceId, svc.name)}
      {backLink}
      {/* NOTE: the tighter padding on a phone only (sm:p-6 above it, in a media query of its own, so no clash):
          it is what lets the actions' row fit 390 px. */}
      <Card compact role="region" aria-labelledby="service-heading" className="flex flex-col gap-4 sm:p-6 lg:flex-row lg:items-start">
        <div className="min-w-0 flex-1 space-y-2">
          <div className="flex flex-wrap items-center gap-2">
            {/* Whole, on as many lines as it takes: the page is about this service. */}
            <h2 id="service-heading" className="min-w-0 text-xl font-semibold wrap-anywhere">
              {svc.name}
            </h2>
            <StatusBadge status={status} terminatesAt={svc.terminates_at} queued={svc.install_queued === true} />
            <NodeStatus service={svc} />
            {/* A failed installation has no paid period: its charge came back, or it waits for the node's first run. */}
            {status !== 'failed' && <RenewalBadge renewsAt={svc.renews_at} autoRenew={svc.auto_renew !== false} />}
          </div>
          <p className="text-xs text-muted-foreground">
            {product?.name ?? 'Custom Service'} · Created {f.date(svc.created_at)}
            {status !== 'failed' && svc.renews_at && !Number.isNaN(Date.parse(svc.renews_at)) && <> · Paid until {f.date(svc.renews_at)}</>}
            {svc.location && <> · Runs in {locationName(svc.location)}</>}
          </p>
          {/* Only a renewing plan's dated service has a renewal to turn off (set_service_auto_renew says the same). */}
          {svc.renews_at && product?.renew_interval && canSetAutoRenew(status) && <AutoRenewSwitch service={svc} />}
          {svc.description && <p className="text-sm">{svc.description}</p>}
          {status === 'failed' && <FailureNote service={svc} />}
          {status === 'failed' && <RefundedNote service={svc} />}
          {status === 'suspended' && <RenewalTopUp service={svc} price={product?.price} />}
          <MaskedKey value={svc.api_key} label={keyLabel} />
        </div>
        {/* One row: the everyday actions, then the rest behind More actions (issue 36, item 7). Below 640 px
            their icons make way (as in the Logs dialog) so that the row fits a phone; the menu's button keeps
            its own, its only content. It wraps only where a font far wider than ours would push it out of the card. */}
        <div className="flex shrink-0 flex-wrap items-start gap-2 lg:justify-end max-sm:[&_button:not([aria-haspopup=menu])>svg]:hidden">
          <ServicePowerActions service={svc} status={status} />
          {logs(svc)}
          {status === 'failed' && <RetryInstallButton service={svc} charge={retryCharge(svc, product)} />}
          <ServiceActionsMenu service={svc} product={product} status={status} userEmail={userEmail} onDeleted={() => navigate(paths.dashboardServices)} />
        </div>
      </Card>

      <div className="grid grid-cols-1 gap-4 md:grid-cols-2">
        <Card role="group" aria-label="Uptime today">
          <h3 className="text-sm font-medium text-muted-foreground">Uptime today</h3>
          <p className="mt-2 text-2xl font-bold">{durationText(onlineToday)} online</p>
          {rule === 'continuous' ? (
            <Streaks service={svc} today={todayRow} asOf={uptime.dataUpdatedAt} />
          ) : (
            threshold !== null && <ThresholdProgress days={uptime.data} threshold={threshold} asOf={uptime.dataUpdatedAt} createdAt={svc.created_at} />
          )}
        </Card>
        <Card role="group" aria-label="Restarts">
          <h3 className="text-sm font-medium text-muted-foreground">Restarts</h3>
          <p className="mt-2 text-sm">
            Restarts in the last 24 hours: <span className="text-2xl font-bold">{restarts.data}</span>
          </p>
        </Card>
      </div>

      <Card role="region" aria-labelledby="uptime-heading">
        <h3 id="uptime-heading" className="mb-4 text-lg font-semibold">
          Uptime
        </h3>
        <UptimeChart days={uptime.data} threshold={threshold} asOf={uptime.dataUpdatedAt} createdAt={svc.created_at} />
      </Card>

      <Card role="region" aria-labelledby="usage-heading">
        <h3 id="usage-heading" className="mb-4 text-lg font-semibold">
          Usage
        </h3>
        <UsageCharts serviceId={svc.id} />
      </Card>

      <Card role="region" aria-labelledby="events-heading">
        <h3 id="events-heading" className="text-lg font-semibold">
          Event history
        </h3>
        {events.data.length === 0 ? (
          <p className="mt-2 text-sm text-muted-foreground">No events yet</p>
        ) : (
          <ol className="mt-4 space-y-2 border-l border-border pl-4 text-sm">
            {events.data.map((e) => (
              <li key={e.id}>
                <time dateTime={e.created_at} className="mr-2 text-muted-foreground">
                  {f.dateTime(e.created_at)}
                </time>
                {serviceEventText(e.event, e.detail, f)}
              </li>
            ))}
          </ol>
        )}
      </Card>
    </div>
  );
}
