import { RECOVERY_CODE_COUNT } from '@shared/constants';
import { Copy, Download, KeyRound } from 'lucide-react';
import { Button } from '@/components/ui/button';
import { errorText } from '@/lib/error-text';
import { toast } from '@/lib/toast';
import { useRecoveryCodeCount, useRegenerateRecoveryCodes } from '../api/recovery-codes';

/**
 * Recovery codes of a user with two-factor sign-in: how many are left and, once, the ten new
 * ones just made (`codes`), which the server cannot show again.
 */
export function RecoveryCodes({ codes, onCodes }: { codes: string[] | null; onCodes: (codes: string[] | null) => void }) {
  const count = useRecoveryCodeCount(codes === null);
  const regenerate = useRegenerateRecoveryCodes();

  const generate = async () => {
    try {
      onCodes(await regenerate.mutateAsync());
    } catch (e) {
      toast.error('Could not create recovery codes', errorText(e));
    }
  };

  const copy = async (list: string[]) => {
    try {
      await navigator.clipboard.writeText(list.join('\n'));
      toast.success('Recovery codes copied');
    } catch {
      toast.error('Could not copy', 'Select the codes and copy them by hand.');
    }
  };

  /** The codes as a text file, to print or keep offline. */
  const download = (list: string[]) => {
    const text = `NodeHarbor recovery codes\nEach works once, in place of a code from your authenticator app.\n\n${list.join('\n')}\n`;
    const url = URL.createObjectURL(new Blob([text], { type: 'text/plain' }));
    const a = Object.assign(document.createElement('a'), { href: url, download: 'nodeharbor-recovery-codes.txt' });
    a.click();
    URL.revokeObjectURL(url);
  };

  if (codes) {
    return (
      <section className="mt-4 space-y-3 rounded-md border border-border p-3" aria-labelledby="recovery-codes-heading">
        <h3 id="recovery-codes-heading" className="font-semibold">
          Save your recovery codes
        </h3>
        <p className="text-sm">
          If you lose your phone, sign in with one of these codes instead of an authenticator code. Each works once. Keep them somewhere safe: we won&apos;t
          show them again.
        </p>
        <ul className="grid grid-cols-2 gap-1 font-mono text-sm" aria-label="Recovery codes">
          {codes.map((c) => (
            <li key={c}>{c}</li>
          ))}
        </ul>
        <div className="flex gap-2">
          <Button variant="outline" size="sm" onClick={() => void copy(codes)}>
            <Copy className="size-4" aria-hidden="true" /> Copy
          </Button>
          <Button variant="outline" size="sm" onClick={() => download(codes)}>
            <Download className="size-4" aria-hidden="true" /> Download
          </Button>
          <Button size="sm" onClick={() => onCodes(null)}>
            I have saved my codes
          </Button>
        </div>
      </section>
    );
  }

  return (
    <div className="mt-4 space-y-1 text-sm">
      <div className="flex flex-wrap items-center justify-between gap-2">
        <span className="flex items-center gap-2" data-testid="recovery-code-count">
          <KeyRound className="size-4 text-muted-foreground" aria-hidden="true" />
          {count.data === undefined ? 'Recovery codes' : `${count.data} of ${RECOVERY_CODE_COUNT} recovery codes left`}
        </span>
        <Button variant="outline" size="sm" disabled={regenerate.isPending} onClick={() => void generate()}>
          {count.data === 0 ? 'Create recovery codes' : 'Replace recovery codes'}
        </Button>
      </div>
      {!!count.data && <p className="text-muted-foreground">New codes replace the old ones, which then stop working.</p>}
    </div>
  );
}
