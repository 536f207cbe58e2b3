import { durationText } from '@shared/node-health';
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
import { useServiceUptime, utcDay, type UptimeDay } from '../api/get-service-uptime';
import type { Service } from '../api/types';
import { serviceEventText } from '@shared/service-events';
import { blockedReason, canSetAutoRenew, displayStatus, isServiceId } from '../service-status';
import { AutoRenewSwitch } from './auto-renew-switch';
import { DeleteServiceDialog } from './delete-service-dialog';
import { ChangeKeyDialog, RenameServiceDialog } from './edit-service-dialogs';
import { ExtendServiceDialog } from './extend-service-dialog';
import { MaskedKey } from './masked-key';
import { NodeStatus } from './node-status';
import { ServicePowerActions } from './power-actions';
import { RetryInstallButton } from './retry-install-button';
import { RenewalBadge, StatusBadge } from './status-badges';
import { UptimeChart } from './uptime-chart';

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
      <Card role="region" aria-labelledby="service-heading" className="flex flex-col gap-4 md:flex-row md:items-start">
        <div className="min-w-0 flex-1 space-y-2">
          <div className="flex flex-wrap items-center gap-2">
            <h2 id="service-heading" className="truncate text-xl font-semibold">
              {svc.name}
            </h2>
            <StatusBadge status={status} terminatesAt={svc.terminates_at} queued={svc.install_queued === true} />
            <NodeStatus service={svc} />
            <RenewalBadge renewsAt={svc.renews_at} autoRenew={svc.auto_renew !== false} />
          </div>
          <p className="text-xs text-muted-foreground">
            {product?.name ?? 'Custom Service'} · Created {f.date(svc.created_at)}
            {svc.renews_at && !Number.isNaN(Date.parse(svc.renews_at)) && <> · Paid until {f.date(svc.renews_at)}</>}
            {svc.location && <> · Runs in {locationName(svc.location)}</>}
          </p>
          {/* Only a renewing plan's dated service has a renewal to turn off (set_service_auto_renew says the same). */}
          {svc.renews_at && product?.renew_interval && canSetAutoRenew(status) && <AutoRenewSwitch service={svc} />}
          {svc.description && <p className="text-sm">{svc.description}</p>}
          {status === 'failed' && svc.provisioning_error && (
            <p className="break-words rounded-md border border-destructive/40 p-2 text-sm">
              <span className="font-medium text-destructive">Reason:</span> {svc.provisioning_error}
            </p>
          )}
          <MaskedKey value={svc.api_key} label={keyLabel} />
        </div>
        {/* Wraps: the service's actions are a growing row (Logs, Retry, Extend, Delete, and more to come). */}
        <div className="flex shrink-0 flex-wrap gap-2 md:max-w-xs md:justify-end">
          <ServicePowerActions service={svc} status={status} />
          {logs(svc)}
          {!svc.is_deleting && <RenameServiceDialog service={svc} />}
          {!svc.is_deleting && <ChangeKeyDialog service={svc} />}
          {status === 'failed' && <RetryInstallButton service={svc} />}
          {product && svc.renews_at && <ExtendServiceDialog service={svc} product={product} blocked={blockedReason(status, 'extend')} />}
          <DeleteServiceDialog
            service={svc}
            userEmail={userEmail}
            blocked={blockedReason(status, 'delete')}
            onDeleted={() => navigate(paths.dashboardServices)}
          />
        </div>
      </Card>

      <div className="grid grid-cols-1 gap-4 md:grid-cols-2">
        <Card role="group" aria-label="Uptime today">
          <h3 className="text-sm font-medium text-muted-foreground">Uptime today</h3>
          <p className="mt-2 text-2xl font-bold">{durationText(onlineToday)} online</p>
          {rule === 'continuous' ? (
            <Streaks service={svc} today={todayRow} asOf={uptime.dataUpdatedAt} />
          ) : (
            <p className="mt-1 text-sm">{todayRow?.meets_threshold ? 'Reward threshold met today' : 'Reward threshold not met today'}</p>
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
        <UptimeChart days={uptime.data} threshold={threshold} asOf={uptime.dataUpdatedAt} />
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
