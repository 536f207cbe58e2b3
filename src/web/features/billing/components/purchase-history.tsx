import { DOCUMENT_TITLES } from '@shared/billing-documents';
import { PROVIDER_LABELS } from '@shared/crypto-payments';
import { Badge } from '@/components/ui/badge';
import { Card } from '@/components/ui/card';
import { useFormat } from '@/lib/format';
import { useBillingDocuments, type BillingDocumentRow } from '../api/get-billing-documents';
import { usePurchases, type Purchase } from '../api/get-purchases';
import { TableScroll } from '@/components/ui/table-scroll';
import { DocumentDownloadButton } from './document-download-button';

const STATUS: Record<Purchase['status'], { label: string; variant: 'warning' | 'success' | 'destructive' | 'secondary' }> = {
  pending: { label: 'Pending', variant: 'warning' },
  completed: { label: 'Completed', variant: 'success' },
  rejected: { label: 'Rejected', variant: 'destructive' },
  expired: { label: 'Expired', variant: 'secondary' },
};

/** A purchase through the built-in test provider is marked, so that it is never taken for a payment. */
function Provider({ provider }: { provider: string }) {
  if (provider === 'test') return <Badge variant="outline">TEST — no money taken</Badge>;
  return <>{PROVIDER_LABELS[provider] ?? provider}</>;
}

/** A purchase's receipt, then the credit notes that correct it, each with its download. */
function Documents({ documents }: { documents: BillingDocumentRow[] }) {
  if (documents.length === 0) return null;
  return (
    <ul className="space-y-2">
      {documents.map((d) => (
        <li key={d.number} className="flex flex-wrap items-center gap-2">
          <span className="whitespace-nowrap">
            {DOCUMENT_TITLES[d.kind]} {d.number}
          </span>
          <DocumentDownloadButton number={d.number} kind={d.kind} />
        </li>
      ))}
    </ul>
  );
}

export function PurchaseHistory({ userId }: { userId: string }) {
  const f = useFormat();
  const purchases = usePurchases(userId);
  const completed = purchases.data?.filter((p) => p.status === 'completed').map((p) => p.id) ?? [];
  const documents = useBillingDocuments(userId, completed);
  return (
    <Card role="region" aria-labelledby="purchases-heading">
      <h2 id="purchases-heading" className="text-lg font-semibold">
        Purchase History
      </h2>
      {purchases.data?.length === 0 && <p className="mt-2 text-sm text-muted-foreground">No purchases yet.</p>}
      {!!purchases.data?.length && (
        <TableScroll label="Purchases table" className="mt-4">
          <table className="w-full text-sm">
            <thead className="text-left text-muted-foreground">
              <tr>
                <th className="py-2 pr-4 font-medium">Date</th>
                <th className="py-2 pr-4 font-medium">Amount</th>
                <th className="py-2 pr-4 font-medium">Provider</th>
                <th className="py-2 pr-4 font-medium">Status</th>
                <th className="py-2 font-medium">Documents</th>
              </tr>
            </thead>
            <tbody className="divide-y divide-border">
              {purchases.data.map((p) => (
                <tr key={p.id}>
                  <td className="py-2 pr-4">{f.dateTime(p.created_at)}</td>
                  <td className="py-2 pr-4">
                    {f.money(p.amount)}
                    {p.credited !== null && p.credited !== p.amount && (
                      <span className="block text-xs text-muted-foreground">Credited {f.money(p.credited)}</span>
                    )}
                  </td>
                  <td className="py-2 pr-4">
                    <Provider provider={p.provider} />
                  </td>
                  <td className="py-2 pr-4">
                    <Badge variant={STATUS[p.status].variant}>{STATUS[p.status].label}</Badge>
                    {p.note && <p className="mt-1 max-w-xs text-xs text-muted-foreground">{p.note}</p>}
                  </td>
                  <td className="py-2">
                    <Documents documents={documents.data?.filter((d) => d.purchase_id === p.id) ?? []} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      )}
    </Card>
  );
}
