import { DOCUMENT_TITLES, type DocumentKind } from '@shared/billing-documents';
import { Download } from 'lucide-react';
import { useState } from 'react';
import { Button } from '@/components/ui/button';
import { toast } from '@/lib/toast';
import { downloadDocument } from '../api/download-document';

/** "Download receipt" (or credit note) for one document; its accessible name carries the number. */
export function DocumentDownloadButton({ number, kind }: { number: string; kind: DocumentKind }) {
  const [busy, setBusy] = useState(false);
  const label = `Download ${DOCUMENT_TITLES[kind].toLowerCase()}`;
  const download = async () => {
    setBusy(true);
    try {
      await downloadDocument(number);
    } catch {
      toast.error('Could not download the document', 'Please try again.');
    } finally {
      setBusy(false);
    }
  };
  return (
    <Button variant="outline" size="sm" aria-label={`${label} ${number}`} aria-busy={busy} disabled={busy} onClick={() => void download()}>
      <Download className="size-4" aria-hidden="true" />
      {label}
    </Button>
  );
}
