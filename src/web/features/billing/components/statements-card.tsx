import { statementMessages, statementMonthName, type StatementFormat } from '@shared/statements';
import { Download } from 'lucide-react';
import { useState } from 'react';
import { Button } from '@/components/ui/button';
import { Card } from '@/components/ui/card';
import { QueryState } from '@/components/ui/query-state';
import { TableScroll } from '@/components/ui/table-scroll';
import { useFormat } from '@/lib/format';
import { toast } from '@/lib/toast';
import { downloadStatement } from '../api/download-statement';
import { useStatementMonths } from '../api/get-statement-months';

/** "PDF" or "CSV" of one month; its accessible name carries the month. */
function StatementDownload({ month, format }: { month: string; format: StatementFormat }) {
  const [busy, setBusy] = useState(false);
  const label = format.toUpperCase();
  const download = async () => {
    setBusy(true);
    try {
      await downloadStatement(month, format);
    } catch (e) {
      toast.error(statementMessages.downloadFailed, (e as Error).message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Button
      variant="outline"
      size="sm"
      aria-label={`Download the ${statementMonthName(month)} statement as ${label}`}
      aria-busy={busy}
      disabled={busy}
      onClick={() => void download()}
    >
      <Download className="size-4" aria-hidden="true" />
      {label}
    </Button>
  );
}

/**
 * Billing › Statements: a statement for every month with a line on the account (UTC months), the
 * current one so far included, each as a PDF and a CSV drawn from the ledger.
 */
export function StatementsCard({ userId }: { userId: string }) {
  const f = useFormat();
  const months = useStatementMonths(userId);
  return (
    <Card role="region" aria-labelledby="statements-heading" id="statements">
      <h2 id="statements-heading" className="text-lg font-semibold">
        Statements
      </h2>
      <QueryState query={months} loading="Loading statements" failed="Failed to load statements" failedClassName="mt-2">
        {(rows) =>
          rows.length === 0 ? (
            <p className="mt-2 text-sm text-muted-foreground">{statementMessages.empty}</p>
          ) : (
            <TableScroll label="Statements table" className="mt-4">
              <table className="w-full text-sm">
                <thead className="text-left text-muted-foreground">
                  <tr>
                    <th className="py-2 pr-4 font-medium">Month (UTC)</th>
                    <th className="py-2 pr-4 font-medium">Opening balance</th>
                    <th className="py-2 pr-4 font-medium">Closing balance</th>
                    <th className="py-2 font-medium">Download</th>
                  </tr>
                </thead>
                <tbody className="divide-y divide-border">
                  {rows.map((m) => (
                    <tr key={m.month}>
                      <td className="py-2 pr-4 whitespace-nowrap">{statementMonthName(m.month)}</td>
                      <td className="py-2 pr-4">{f.money(m.opening)}</td>
                      <td className="py-2 pr-4">{f.money(m.closing)}</td>
                      <td className="py-2">
                        <div className="flex flex-wrap gap-2">
                          <StatementDownload month={m.month} format="pdf" />
                          <StatementDownload month={m.month} format="csv" />
                        </div>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </TableScroll>
          )
        }
      </QueryState>
    </Card>
  );
}
