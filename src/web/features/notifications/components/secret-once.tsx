import { Copy } from 'lucide-react';
import { Button } from '@/components/ui/button';
import { toast } from '@/lib/toast';
import { notificationTexts as t } from '../notification-texts';

/** A new webhook's signing secret: the server keeps it encrypted and never shows it again. */
export function SecretOnce({ secret }: { secret: string }) {
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(secret);
      toast.success(t.copied);
    } catch {
      toast.error(t.copyFailed, t.copyFailedText);
    }
  };
  return (
    <section className="space-y-2 rounded-md border border-border p-3" aria-labelledby="webhook-secret-heading">
      <h3 id="webhook-secret-heading" className="font-semibold">
        {t.secretHeading}
      </h3>
      <p className="text-sm">{t.secretOnce}</p>
      <code className="block break-all rounded bg-muted px-2 py-1 font-mono text-sm" data-testid="webhook-secret">
        {secret}
      </code>
      <Button variant="outline" size="sm" onClick={() => void copy()}>
        <Copy className="size-4" aria-hidden="true" /> {t.copy}
      </Button>
    </section>
  );
}
