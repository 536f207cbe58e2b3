import { X } from 'lucide-react';
import { Dialog as D } from 'radix-ui';
import type { ReactNode } from 'react';

function focusDialog(event: Event) {
  event.preventDefault();
  if (event.currentTarget instanceof HTMLElement) event.currentTarget.focus();
}

/**
 * A dialog opened from elsewhere than a trigger of its own (a menu's item, which is gone once
 * chosen): whether it is open, and how focus goes back to the page when it closes.
 */
export type DialogControl = { open: boolean; onOpenChange: (open: boolean) => void; returnFocus: () => void };

/** A modal dialog on radix (focus trap, Escape, labelled by its title and description). */
export function Dialog({
  open,
  onOpenChange,
  title,
  description,
  trigger,
  wide = false,
  initialFocus = 'first-control',
  returnFocus,
  children,
}: {
  open?: boolean;
  onOpenChange?: (open: boolean) => void;
  title: string;
  description?: ReactNode;
  trigger?: ReactNode;
  /** For wide content such as log lines. */
  wide?: boolean;
  /**
   * Where focus goes on opening: the first control (radix's default), or the dialog itself, for a
   * form whose fields speak once they have been left (react-hook-form's onTouched).
   */
  initialFocus?: 'first-control' | 'dialog';
  /** Puts focus back on closing, for a dialog without a trigger (radix would leave it on the page's body). */
  returnFocus?: () => void;
  children: ReactNode;
}) {
  return (
    <D.Root open={open} onOpenChange={onOpenChange}>
      {trigger && <D.Trigger asChild>{trigger}</D.Trigger>}
      <D.Portal>
        <D.Overlay className="fixed inset-0 z-50 bg-black/50" />
        <D.Content
          className={`fixed left-1/2 top-1/2 z-50 max-h-[90vh] w-[calc(100%-2rem)] ${wide ? 'max-w-3xl' : 'max-w-lg'} -translate-x-1/2 -translate-y-1/2 overflow-y-auto rounded-xl border border-border bg-background p-6 shadow-lg`}
          {...(description ? {} : { 'aria-describedby': undefined })}
          onOpenAutoFocus={initialFocus === 'dialog' ? focusDialog : undefined}
          onCloseAutoFocus={
            returnFocus
              ? (event) => {
                  event.preventDefault();
                  returnFocus();
                }
              : undefined
          }
        >
          <D.Title className="pr-8 text-lg font-semibold">{title}</D.Title>
          {description && <D.Description className="mt-1 text-sm text-muted-foreground">{description}</D.Description>}
          <div className="mt-4">{children}</div>
          <D.Close className="absolute right-4 top-4 rounded-sm opacity-70 hover:opacity-100" aria-label="Close">
            <X className="size-4" aria-hidden="true" />
          </D.Close>
        </D.Content>
      </D.Portal>
    </D.Root>
  );
}
