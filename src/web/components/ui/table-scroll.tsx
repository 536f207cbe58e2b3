import type { ReactNode } from 'react';

/**
 * The box a wide table scrolls sideways in, so that the page does not. It can take focus, so that a
 * keyboard can scroll it, and is named for assistive technology (the table's own name and "scrolls sideways").
 */
export function TableScroll({ label, className, children }: { label: string; className?: string; children: ReactNode }) {
  return (
    // relative: an sr-only (absolute) header inside would otherwise widen the page, not this box.
    <div
      role="group"
      aria-label={`${label}, scrolls sideways`}
      tabIndex={0}
      className={`relative overflow-x-auto rounded-md focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-ring ${className ?? ''}`}
    >
      {children}
    </div>
  );
}
