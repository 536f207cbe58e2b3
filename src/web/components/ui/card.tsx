import type { ComponentProps } from 'react';

/**
 * A card. Like Button, it stays out of tailwind-merge (8 KB on every public page that shows one):
 * a caller's className adds layout and never a second value for padding, border or colour;
 * `compact` is the tighter padding.
 */
export function Card({ className, compact = false, ...props }: ComponentProps<'div'> & { compact?: boolean }) {
  const base = `rounded-xl border border-border bg-card shadow-sm ${compact ? 'p-4' : 'p-6'}`;
  return <div className={className ? `${base} ${className}` : base} {...props} />;
}
