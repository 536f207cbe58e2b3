import { LoaderCircle } from 'lucide-react';

export function Spinner({ label }: { label: string }) {
  return (
    <div role="status" className="flex items-center justify-center gap-3 py-16 text-muted-foreground">
      <LoaderCircle className="size-6 animate-spin" aria-hidden="true" />
      <span>{label}</span>
    </div>
  );
}
