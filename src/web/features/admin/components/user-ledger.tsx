import { TRANSACTION_TYPE_LABELS } from '@shared/ledger';
import type { UseQueryResult } from '@tanstack/react-query';
import { TableScroll } from '@/components/ui/table-scroll';
import { useFormat } from '@/lib/format';
import type { Paged, UserTransaction } from '../api/get-user-transactions';
import { PagedCard } from './paged-card';

/** Every credit transaction of the user, newest first, in pages. */
export function UserLedger({ query, page, onPage }: { query: UseQueryResult<Paged<UserTransaction>>; page: number; onPage: (page: number) => void }) {
  const f = useFormat();
  return (
    <PagedCard id="ledger" title="Ledger" query={query} page={page} onPage={onPage} empty="No transactions">
      {(rows) => (
        <TableScroll label="Ledger table" className="mt-4">
          <table className="w-full text-sm">
            <thead className="text-left text-muted-foreground">
              <tr>
                <th className="py-2 pr-4 font-medium">Date</th>
                <th className="py-2 pr-4 font-medium">Type</th>
                <th className="py-2 pr-4 font-medium">Description</th>
                <th className="py-2 pr-4 font-medium">Service</th>
                <th className="py-2 text-right font-medium">Amount</th>
              </tr>
            </thead>
            <tbody className="divide-y divide-border">
              {rows.map((t) => (
                <tr key={t.id}>
                  <td className="whitespace-nowrap py-2 pr-4">{f.dateTime(t.created_at)}</td>
                  <td className="py-2 pr-4">{TRANSACTION_TYPE_LABELS[t.type]}</td>
                  <td className="max-w-xs break-words py-2 pr-4">{t.description}</td>
                  <td className="py-2 pr-4">{t.service_name}</td>
                  <td className={`whitespace-nowrap py-2 text-right font-medium ${t.amount < 0 ? 'text-destructive' : ''}`}>{f.money(t.amount)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      )}
    </PagedCard>
  );
}
