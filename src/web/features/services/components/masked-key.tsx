import { KEY_MASK_VISIBLE } from '@shared/constants';
import { Copy, Eye, EyeOff } from 'lucide-react';
import { useState } from 'react';
import { Button } from '@/components/ui/button';
import { toast } from '@/lib/toast';
import { maskKey } from '../service-status';

/** The key hidden but its last 4 characters, with show/hide and copy. */
export function MaskedKey({ value, label }: { value: string; label: string }) {
  const [shown, setShown] = useState(false);
  const copy = () =>
    navigator.clipboard.writeText(value).then(
      () => toast.success('API key copied to clipboard'),
      () => toast.error('Could not copy the key'),
    );
  return (
    <div className="flex min-w-0 items-center gap-1">
      <code className="min-w-0 truncate rounded bg-muted px-2 py-1 font-mono text-xs">
        {shown ? value : maskKey(value, KEY_MASK_VISIBLE)}
      </code>
      <Button variant="ghost" size="icon" className="size-8 shrink-0" onClick={() => setShown((s) => !s)} aria-label={shown ? `Hide ${label}` : `Show ${label}`}>
        {shown ? <EyeOff className="size-4" aria-hidden="true" /> : <Eye className="size-4" aria-hidden="true" />}
      </Button>
      <Button variant="ghost" size="icon" className="size-8 shrink-0" onClick={() => void copy()} aria-label={`Copy ${label}`}>
        <Copy className="size-4" aria-hidden="true" />
      </Button>
    </div>
  );
}
