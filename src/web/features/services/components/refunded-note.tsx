import { failedInstallTexts } from '@shared/failed-install';
import { useFormat } from '@/lib/format';
import type { Service } from '../api/types';
import { installRefund } from '../service-status';

/** On a failed card and page, where a paid period would be: what came back to the balance for it. */
export function RefundedNote({ service }: { service: Service }) {
  const f = useFormat();
  const refunded = installRefund(service);
  if (refunded === null) return null;
  return <p className="rounded-md border border-border p-2 text-sm">{failedInstallTexts.refunded(f.money(refunded))}</p>;
}
