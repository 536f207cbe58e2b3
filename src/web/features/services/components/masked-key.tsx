import { KEY_MASK_VISIBLE } from '@shared/constants';
import { Copy, Eye, EyeOff } from 'lucide-react';
import { useState } from 'react';
import { Button } from '@/components/ui/button';
import { toast } from '@/lib/toast';
import { maskKey } from '../service-status';

/** The key hidden but its last 4 characters, with show/hide and copy; shown, it wraps rather than hide its end. */
export function MaskedKey({ value, label }: { value: string; label: string }) {
  const [shown, setShown] = useState(false);
  const masked = maskKey(value, KEY_MASK_VISIBLE);
  const copy = () =>
    navigator.clipboard.writeText(value).then(
      () => toast.success('API key copied to clipboard'),
      () => toast.error('Could not copy the key'),
    );
  return (
    <div className="flex min-w-0 items-center gap-1">
      {shown ? (
        <code className="min-w-0 break-all rounded bg-muted px-2 py-1 font-mono text-xs">{value}</code>
      ) : (
        // Short of room the dots give way, never the last characters: they are what tells keys apart.
        <code className="flex min-w-0 rounded bg-muted px-2 py-1 font-mono text-xs">
          <span className="min-w-0 truncate">{masked.dots}</span>
          <span className="shrink-0">{masked.tail}</span>
        </code>
      )}
      <Button
        variant="ghost"
        size="icon"
        className="size-8 shrink-0"
        onClick={() => setShown((s) => !s)}
        aria-label={shown ? `Hide ${label}` : `Show ${label}`}
      >
        {shown ? <EyeOff className="size-4" aria-hidden="true" /> : <Eye className="size-4" aria-hidden="true" />}
      </Button>
      <Button variant="ghost" size="icon" className="size-8 shrink-0" onClick={() => void copy()} aria-label={`Copy ${label}`}>
        <Copy className="size-4" aria-hidden="true" />
      </Button>
    </div>
  );
}
