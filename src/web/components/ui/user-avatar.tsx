import { cn } from '@/lib/utils';

/** The first letters of the full name's words, at most two, else "U" (spec §2). */
export function initials(fullName: string | null | undefined): string {
  const letters = (fullName ?? '')
    .trim()
    .split(/\s+/)
    .filter(Boolean)
    .map((w) => Array.from(w)[0]!.toUpperCase())
    .slice(0, 2)
    .join('');
  return letters || 'U';
}

export function UserAvatar({ fullName, className }: { fullName: string | null | undefined; className?: string }) {
  return (
    <span
      aria-hidden="true"
      className={cn('inline-flex size-9 shrink-0 items-center justify-center rounded-full bg-primary text-sm font-semibold text-primary-foreground', className)}
    >
      {initials(fullName)}
    </span>
  );
}
