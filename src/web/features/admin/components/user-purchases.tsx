import type { UseQueryResult } from '@tanstack/react-query';
import { Badge } from '@/components/ui/badge';
import { TableScroll } from '@/components/ui/table-scroll';
import { useFormat } from '@/lib/format';
import type { UserPurchase } from '../api/get-user-purchases';
import type { Paged } from '../api/get-user-transactions';
import { PagedCard } from './paged-card';
import { RefundDialog, RetryRefundButton } from './refund-dialog';

const STATUS: Record<UserPurchase['status'], { label: string; variant: 'warning' | 'success' | 'destructive' | 'secondary' }> = {
  pending: { label: 'Pending', variant: 'warning' },
  completed: { label: 'Completed', variant: 'success' },
  rejected: { label: 'Rejected', variant: 'destructive' },
  expired: { label: 'Expired', variant: 'secondary' },
};

const PROVIDERS: Record<string, string> = { paypal: 'PayPal', test: 'Test provider' };

/**
 * The user's credit purchases, newest first, in pages: what the provider was asked for, where it
 * stands, its receipt, what was refunded, and a Refund while something is left to refund.
 */
export function UserPurchases({
  userId,
  balance,
  query,
  page,
  onPage,
}: {
  userId: string;
  /** The user's balance now, for what a refund would leave. */
  balance: number;
  query: UseQueryResult<Paged<UserPurchase>>;
  page: number;
  onPage: (page: number) => void;
}) {
  const f = useFormat();
  return (
    <PagedCard id="purchases" title="Credit purchases" query={query} page={page} onPage={onPage} empty="No purchases">
      {(rows) => (
        <TableScroll label="Credit purchases table" className="mt-4">
          <table className="w-full text-sm">
            <thead className="text-left text-muted-foreground">
              <tr>
                <th className="py-2 pr-4 font-medium">Started</th>
                <th className="py-2 pr-4 font-medium">Amount</th>
                <th className="py-2 pr-4 font-medium">Provider</th>
                <th className="py-2 pr-4 font-medium">Status</th>
                <th className="py-2 pr-4 font-medium">Last change</th>
                <th className="py-2 pr-4 font-medium">Receipt</th>
                <th className="py-2 pr-4 font-medium">Refunded</th>
                <th className="py-2 font-medium">
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody className="divide-y divide-border">
              {rows.map((p) => (
                <tr key={p.id}>
                  <td className="whitespace-nowrap py-2 pr-4">{f.dateTime(p.created_at)}</td>
                  <td className="py-2 pr-4">{f.money(p.amount)}</td>
                  <td className="py-2 pr-4">{PROVIDERS[p.provider] ?? p.provider}</td>
                  <td className="py-2 pr-4">
                    <Badge variant={STATUS[p.status].variant}>{STATUS[p.status].label}</Badge>
                  </td>
                  <td className="whitespace-nowrap py-2 pr-4">{f.dateTime(p.updated_at)}</td>
                  <td className="whitespace-nowrap py-2 pr-4">{p.receipt_number ?? '—'}</td>
                  <td className="py-2 pr-4">{p.refunded > 0 ? f.money(p.refunded) : '—'}</td>
                  <td className="space-x-2 whitespace-nowrap py-2 text-right">
                    {p.unanswered_refund !== null && <RetryRefundButton userId={userId} purchase={p} amount={p.unanswered_refund} />}
                    {p.refundable > 0 && <RefundDialog userId={userId} purchase={p} balance={balance} />}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      )}
    </PagedCard>
  );
}
