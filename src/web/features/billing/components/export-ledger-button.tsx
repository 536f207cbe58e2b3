import { Download } from 'lucide-react';
import { useState } from 'react';
import { Button } from '@/components/ui/button';
import { useFormatPrefs } from '@/lib/format';
import { saveFile } from '@/lib/save-file';
import { toast } from '@/lib/toast';
import { getLedgerExport } from '../api/get-ledger-export';
import type { LedgerQuery } from '../api/get-ledger-page';
import { ledgerCsv, ledgerCsvName } from '../ledger-csv';

/** Downloads every transaction the filters select, on every page, as CSV made in the browser. */
export function ExportLedgerButton({ userId, query, disabled }: { userId: string; query: LedgerQuery; disabled: boolean }) {
  const { timeZone } = useFormatPrefs();
  const [busy, setBusy] = useState(false);
  const exportCsv = async () => {
    setBusy(true);
    try {
      const csv = ledgerCsv(await getLedgerExport(userId, query));
      saveFile(new Blob([csv], { type: 'text/csv;charset=utf-8' }), ledgerCsvName(new Date(), timeZone));
    } catch {
      toast.error('Failed to download the transactions', 'Please try again.');
    } finally {
      setBusy(false);
    }
  };
  return (
    <Button variant="outline" size="sm" disabled={disabled || busy} onClick={() => void exportCsv()}>
      <Download className="size-4" aria-hidden="true" />
      {busy ? 'Preparing CSV...' : 'Download CSV'}
    </Button>
  );
}
