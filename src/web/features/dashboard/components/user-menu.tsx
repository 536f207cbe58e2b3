import { LogOut, Settings, User } from 'lucide-react';
import { DropdownMenu } from 'radix-ui';
import { Link } from 'react-router';
import { initials, UserAvatar } from '@/components/ui/user-avatar';
import { paths } from '@/config/paths';

const itemClass = 'flex cursor-pointer items-center gap-2 rounded-sm px-2 py-1.5 text-sm outline-none data-[highlighted]:bg-muted';

export function UserMenu({ fullName, email, onSignOut }: { fullName: string | null; email: string; onSignOut: () => void }) {
  return (
    // Not modal: a modal menu hides the rest of the page (a toast's buttons too) from assistive technology while they stay focusable.
    <DropdownMenu.Root modal={false}>
      <DropdownMenu.Trigger asChild>
        {/* The name starts with the initials the button shows, so that speech control finds it by what is seen. */}
        <button
          type="button"
          aria-label={`${initials(fullName)}, User menu`}
          className="rounded-full focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-ring"
        >
          <UserAvatar fullName={fullName} />
        </button>
      </DropdownMenu.Trigger>
      <DropdownMenu.Portal>
        <DropdownMenu.Content align="end" sideOffset={8} className="z-50 w-60 rounded-md border border-border bg-background p-1 shadow-lg">
          <DropdownMenu.Label className="px-2 py-1.5">
            <span className="block text-sm font-medium">{fullName || 'User'}</span>
            <span className="block truncate text-xs text-muted-foreground">{email}</span>
          </DropdownMenu.Label>
          <DropdownMenu.Separator className="my-1 h-px bg-border" />
          <DropdownMenu.Item asChild className={itemClass}>
            <Link to={paths.dashboardAccount}>
              <User className="size-4" aria-hidden="true" /> Account
            </Link>
          </DropdownMenu.Item>
          <DropdownMenu.Item asChild className={itemClass}>
            <Link to={paths.dashboardSettings}>
              <Settings className="size-4" aria-hidden="true" /> Settings
            </Link>
          </DropdownMenu.Item>
          <DropdownMenu.Separator className="my-1 h-px bg-border" />
          <DropdownMenu.Item className={itemClass} onSelect={onSignOut}>
            <LogOut className="size-4" aria-hidden="true" /> Log out
          </DropdownMenu.Item>
        </DropdownMenu.Content>
      </DropdownMenu.Portal>
    </DropdownMenu.Root>
  );
}
