import { Tooltip as T } from 'radix-ui';
import type { ReactNode } from 'react';

/**
 * A tooltip on radix. A disabled button gets no pointer or focus events, so the trigger is a
 * focusable wrapper around it and the text is also its accessible description.
 */
export function Tooltip({ content, children }: { content: string | null; children: ReactNode }) {
  if (!content) return children;
  return (
    <T.Provider delayDuration={200}>
      <T.Root>
        <T.Trigger asChild>
          <span tabIndex={0} className="inline-flex" aria-label={content}>
            {children}
          </span>
        </T.Trigger>
        <T.Portal>
          <T.Content sideOffset={4} className="z-50 max-w-xs rounded-md bg-foreground px-3 py-1.5 text-xs text-background shadow">
            {content}
          </T.Content>
        </T.Portal>
      </T.Root>
    </T.Provider>
  );
}
