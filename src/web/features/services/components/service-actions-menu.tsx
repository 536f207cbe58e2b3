import { CalendarPlus, Ellipsis, KeyRound, Pencil, Trash2, type LucideIcon } from 'lucide-react';
import { DropdownMenu } from 'radix-ui';
import { Fragment, useId, useRef, useState } from 'react';
import { Button } from '@/components/ui/button';
import type { DialogControl } from '@/components/ui/dialog';
import { cn } from '@/lib/utils';
import type { Product, Service } from '../api/types';
import { blockedReason, type DisplayStatus } from '../service-status';
import { DeleteServiceDialog } from './delete-service-dialog';
import { ChangeKeyDialog, RenameServiceDialog } from './edit-service-dialogs';
import { ExtendServiceDialog } from './extend-service-dialog';

type Action = 'extend' | 'rename' | 'key' | 'delete';

type Props = { service: Service; product: Product | null | undefined; status: DisplayStatus; userEmail: string; onDeleted: () => void };

const itemClass =
  'flex cursor-pointer items-center gap-2 rounded-sm px-2 py-1.5 text-sm outline-none data-[highlighted]:bg-muted data-[disabled]:cursor-not-allowed data-[disabled]:opacity-60';

/**
 * The service page's less-used actions (Extend, Rename, Change key, Delete) behind one button, so
 * that its actions keep to one row on a laptop and a phone alike. Each item is named as its button
 * was ("Extend town-1", "Rename", "Change key", "Delete town-1"); one that cannot be used now stays
 * in the list, disabled, with its reason under it. The dialogs live outside the menu, which is
 * gone once an item is chosen, and give focus back to the menu's button when they close.
 */
export function ServiceActionsMenu({ service, product, status, userEmail, onDeleted }: Props) {
  const id = useId();
  const [dialog, setDialog] = useState<Action | null>(null);
  // Set while an item opens its dialog: the menu then leaves focus to the dialog instead of taking it back.
  const opening = useRef(false);

  // Found by a mark of its own (radix gives the button its id): a ref read in a function that render hands on is what React's rules forbid.
  const returnFocus = () => document.querySelector<HTMLElement>(`[data-menu-trigger="${id}"]`)?.focus();
  const control = (action: Action): DialogControl => ({ open: dialog === action, onOpenChange: (open) => setDialog(open ? action : null), returnFocus });

  const item = (action: Action, Icon: LucideIcon, text: string, name: string, blocked: string | null = null, destructive = false) => (
    <Fragment key={action}>
      <DropdownMenu.Item
        className={cn(itemClass, destructive && 'text-destructive')}
        disabled={!!blocked}
        aria-label={name}
        aria-describedby={blocked ? `${id}-${action}` : undefined}
        onSelect={() => {
          opening.current = true;
          setDialog(action);
        }}
      >
        <Icon className="size-4 shrink-0" aria-hidden="true" /> {text}
      </DropdownMenu.Item>
      {/* Beside the item, not in it: an item's name holds what it shows (the reason is its description). */}
      {blocked && (
        <p id={`${id}-${action}`} className="-mt-1 px-2 pb-1.5 pl-8 text-xs text-muted-foreground">
          {blocked}
        </p>
      )}
    </Fragment>
  );

  const extendable = !!product && !!service.renews_at;
  const editable = !service.is_deleting;
  return (
    <>
      {/* Not modal, as the user menu: a modal menu hides the rest of the page from assistive technology while it stays focusable. */}
      <DropdownMenu.Root modal={false}>
        <DropdownMenu.Trigger asChild>
          <Button data-menu-trigger={id} variant="outline" size="iconSm" aria-label={`More actions for ${service.name}`}>
            <Ellipsis className="size-4" aria-hidden="true" />
          </Button>
        </DropdownMenu.Trigger>
        <DropdownMenu.Portal>
          <DropdownMenu.Content
            align="end"
            sideOffset={4}
            collisionPadding={8}
            className="z-50 w-60 max-w-[calc(100vw-1rem)] rounded-md border border-border bg-background p-1 shadow-lg"
            onCloseAutoFocus={(event) => {
              if (opening.current) event.preventDefault();
              opening.current = false;
            }}
          >
            {extendable && item('extend', CalendarPlus, 'Extend', `Extend ${service.name}`, blockedReason(status, 'extend'))}
            {editable && item('rename', Pencil, 'Rename', 'Rename')}
            {editable && item('key', KeyRound, 'Change key', 'Change key')}
            <DropdownMenu.Separator className="my-1 h-px bg-border" />
            {item('delete', Trash2, 'Delete', `Delete ${service.name}`, blockedReason(status, 'delete'), true)}
          </DropdownMenu.Content>
        </DropdownMenu.Portal>
      </DropdownMenu.Root>
      {extendable && <ExtendServiceDialog service={service} product={product} blocked={blockedReason(status, 'extend')} control={control('extend')} />}
      {editable && <RenameServiceDialog service={service} control={control('rename')} />}
      {editable && <ChangeKeyDialog service={service} control={control('key')} />}
      <DeleteServiceDialog
        service={service}
        userEmail={userEmail}
        blocked={blockedReason(status, 'delete')}
        onDeleted={onDeleted}
        control={control('delete')}
      />
    </>
  );
}
