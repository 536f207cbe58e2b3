import { autoRenewTexts } from '@shared/auto-renew';
import { INSTALL_WAITING_FOR_SLOT } from '@shared/node-health';
import { LoaderCircle } from 'lucide-react';
import { Badge } from '@/components/ui/badge';
import { useFormat } from '@/lib/format';
import type { DisplayStatus } from '../service-status';

/**
 * The service's status; a suspension says the day it ends in termination, in the reader's format,
 * and an install still waiting in the queue (`queued`) says so beside Installing.
 */
export function StatusBadge({ status, terminatesAt, queued = false }: { status: DisplayStatus; terminatesAt?: string | null | undefined; queued?: boolean }) {
  const f = useFormat();
  if (status === 'deleting') return <Badge variant="destructive">Deleting</Badge>;
  if (status === 'installing')
    return (
      <>
        <Badge variant="warning">
          <LoaderCircle className="size-3 animate-spin" aria-hidden="true" /> Installing
        </Badge>
        {queued && <span className="text-xs text-muted-foreground">{INSTALL_WAITING_FOR_SLOT}</span>}
      </>
    );
  if (status === 'failed') return <Badge variant="destructive">Installation failed</Badge>;
  if (status === 'suspended')
    return (
      <Badge variant="warning" title={terminatesAt ? f.dateTime(terminatesAt) : undefined}>
        Suspended{terminatesAt && !Number.isNaN(Date.parse(terminatesAt)) && <> · terminates on {f.date(terminatesAt)}</>}
      </Badge>
    );
  if (status === 'expired') return <Badge variant="secondary">Expired</Badge>;
  return <Badge variant="success">Active</Badge>;
}

/**
 * Spec §4 renewal badge: one-time, renews in …, expired … ago, or an invalid date. A service whose
 * owner turned renewal off says when it ends instead ("Ends in 30 days").
 */
export function RenewalBadge({ renewsAt, autoRenew = true }: { renewsAt: string | null; autoRenew?: boolean }) {
  const f = useFormat();
  if (!renewsAt) return <Badge variant="outline">One-time service</Badge>;
  const when = new Date(renewsAt).getTime();
  if (Number.isNaN(when)) return <Badge variant="outline">Invalid renewal date</Badge>;
  const relative = f.relative(renewsAt);
  return f.isFuture(renewsAt) ? (
    <Badge variant="outline" title={f.dateTime(renewsAt)}>
      {autoRenew ? `Renews ${relative}` : autoRenewTexts.ends(relative)}
    </Badge>
  ) : (
    <Badge variant="destructive" title={f.dateTime(renewsAt)}>
      Expired {relative}
    </Badge>
  );
}
