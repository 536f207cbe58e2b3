import { parseProperties } from '@shared/validation';
import { Link } from 'react-router';
import { Card } from '@/components/ui/card';
import { paths } from '@/config/paths';
import { useFormat } from '@/lib/format';
import { cn } from '@/lib/utils';
import type { Product, Service } from '../api/types';
import { blockedReason, displayStatus, retryCharge } from '../service-status';
import { DeleteServiceDialog } from './delete-service-dialog';
import { ExtendServiceDialog } from './extend-service-dialog';
import { FailureNote } from './failure-note';
import { MaskedKey } from './masked-key';
import { NodeStatus } from './node-status';
import { RefundedNote } from './refunded-note';
import { RenewalTopUp } from './renewal-top-up';
import { RetryInstallButton } from './retry-install-button';
import { RenewalBadge, StatusBadge } from './status-badges';

export type ServicesLayout = 'list' | 'grid';

export function ServiceCard({
  service,
  product,
  userEmail,
  layout,
}: {
  service: Service;
  product: Product | undefined;
  userEmail: string;
  layout: ServicesLayout;
}) {
  const f = useFormat();
  const status = displayStatus(service);
  const keyLabel = parseProperties(product?.properties)?.data_name || 'API Key';
  return (
    <Card
      role="article"
      aria-label={service.name}
      className={cn('flex min-w-0 gap-4 p-4', layout === 'list' ? 'flex-col md:flex-row md:items-center' : 'flex-col')}
    >
      <div className="min-w-0 flex-1 space-y-2">
        <div className="flex flex-wrap items-center gap-2">
          <h2 className="truncate text-lg font-semibold">
            <Link to={paths.dashboardService(service.id)} className="hover:underline">
              {service.name}
            </Link>
          </h2>
          <StatusBadge status={status} terminatesAt={service.terminates_at} queued={service.install_queued === true} />
          <NodeStatus service={service} />
          {/* A failed installation has no paid period: its charge came back, or it waits for the node's first run. */}
          {status !== 'failed' && <RenewalBadge renewsAt={service.renews_at} autoRenew={service.auto_renew !== false} />}
        </div>
        <p className="text-xs text-muted-foreground">
          {product?.name ?? 'Custom Service'} · Created {f.date(service.created_at)}
          {status !== 'failed' && service.renews_at && !Number.isNaN(Date.parse(service.renews_at)) && <> · Paid until {f.date(service.renews_at)}</>}
        </p>
        {service.description && <p className="text-sm">{service.description}</p>}
        {status === 'failed' && <FailureNote service={service} />}
        {status === 'failed' && <RefundedNote service={service} />}
        {status === 'suspended' && <RenewalTopUp service={service} price={product?.price} />}
        <MaskedKey value={service.api_key} label={keyLabel} />
      </div>
      <div className="flex shrink-0 gap-2">
        {status === 'failed' && <RetryInstallButton service={service} charge={retryCharge(service, product)} />}
        {product && service.renews_at && <ExtendServiceDialog service={service} product={product} blocked={blockedReason(status, 'extend')} />}
        <DeleteServiceDialog service={service} userEmail={userEmail} blocked={blockedReason(status, 'delete')} />
      </div>
    </Card>
  );
}
