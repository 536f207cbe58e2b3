import { MOBILE_BREAKPOINT_PX } from '@shared/constants';
import { CreditCard, LayoutDashboard, LogOut, Menu, PanelLeftClose, PanelLeftOpen, Server, Settings, Shield, User, X } from 'lucide-react';
import { Dialog as D } from 'radix-ui';
import { useEffect, useState, type ComponentType } from 'react';
import { NavLink } from 'react-router';
import { Logo } from '@/components/layout/logo';
import { paths } from '@/config/paths';
import { cn } from '@/lib/utils';

type Item = { to: string; label: string; icon: ComponentType<{ className?: string }>; end?: boolean };

const ITEMS: Item[] = [
  { to: paths.dashboard, label: 'Dashboard', icon: LayoutDashboard, end: true },
  { to: paths.dashboardServices, label: 'Services', icon: Server },
  { to: paths.dashboardBilling, label: 'Billing', icon: CreditCard },
  { to: paths.dashboardSettings, label: 'Settings', icon: Settings },
  { to: paths.dashboardAccount, label: 'Account', icon: User },
];

const itemClass = 'flex h-10 items-center gap-3 rounded-md px-3 text-sm font-medium hover:bg-muted';

type NavProps = { isAdmin: boolean; onSignOut: () => void };

/** The items and Sign out; collapsed shows icons only and keeps the names for assistive technology. */
function NavItems({ isAdmin, onSignOut, collapsed = false, onChoose }: NavProps & { collapsed?: boolean; onChoose?: () => void }) {
  const items: Item[] = isAdmin ? [...ITEMS, { to: paths.admin, label: 'Admin Dashboard', icon: Shield }] : ITEMS;
  return (
    <>
      <nav aria-label="Dashboard" className="flex-1 space-y-1 p-2">
        {items.map(({ to, label, icon: Icon, end }) => (
          <NavLink
            key={to}
            to={to}
            end={end}
            title={collapsed ? label : undefined}
            onClick={onChoose}
            className={({ isActive }) => cn(itemClass, collapsed && 'justify-center px-0', isActive && 'bg-muted text-primary')}
          >
            <Icon className="size-5 shrink-0" aria-hidden="true" />
            <span className={cn(collapsed && 'sr-only')}>{label}</span>
          </NavLink>
        ))}
      </nav>
      <div className="border-t border-border p-2">
        <button
          type="button"
          onClick={() => {
            onChoose?.();
            onSignOut();
          }}
          className={cn(itemClass, 'w-full', collapsed && 'justify-center px-0')}
        >
          <LogOut className="size-5 shrink-0" aria-hidden="true" />
          <span className={cn(collapsed && 'sr-only')}>Sign out</span>
        </button>
      </div>
    </>
  );
}

/** The dashboard's navigation from 768 px up: a collapsible sidebar beside the page. */
export function DashboardSidebar({ collapsed, onToggle, ...nav }: NavProps & { collapsed: boolean; onToggle: () => void }) {
  return (
    <aside
      className={cn('sticky top-0 hidden h-screen shrink-0 flex-col border-r border-border bg-card transition-[width] md:flex', collapsed ? 'w-16' : 'w-60')}
    >
      <div className={cn('flex h-16 items-center border-b border-border px-3', collapsed ? 'justify-center' : 'justify-between')}>
        {!collapsed && <Logo />}
        <button
          type="button"
          onClick={onToggle}
          aria-label={collapsed ? 'Expand sidebar' : 'Collapse sidebar'}
          aria-expanded={!collapsed}
          className="rounded-md p-2 hover:bg-muted focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-ring"
        >
          {collapsed ? <PanelLeftOpen className="size-5" aria-hidden="true" /> : <PanelLeftClose className="size-5" aria-hidden="true" />}
        </button>
      </div>
      <NavItems collapsed={collapsed} {...nav} />
    </aside>
  );
}

/**
 * The dashboard's navigation below 768 px: a Menu button opening the items as a drawer over the page
 * (a radix dialog: focus moves in and back to Menu, Escape and a tap outside close it).
 */
export function DashboardDrawer(nav: NavProps) {
  const [open, setOpen] = useState(false);
  // Widened past the breakpoint the sidebar is back: a drawer left open would hold focus and scroll.
  useEffect(() => {
    const wide = window.matchMedia(`(min-width: ${MOBILE_BREAKPOINT_PX}px)`);
    const close = () => wide.matches && setOpen(false);
    wide.addEventListener('change', close);
    return () => wide.removeEventListener('change', close);
  }, []);
  return (
    <D.Root open={open} onOpenChange={setOpen}>
      <D.Trigger asChild>
        <button
          type="button"
          aria-label="Menu"
          className="rounded-md p-2 hover:bg-muted focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-ring md:hidden"
        >
          <Menu className="size-5" aria-hidden="true" />
        </button>
      </D.Trigger>
      <D.Portal>
        <D.Overlay className="fixed inset-0 z-50 bg-black/50" />
        <D.Content
          aria-describedby={undefined}
          className="fixed inset-y-0 left-0 z-50 flex w-72 max-w-[85vw] flex-col border-r border-border bg-card shadow-lg"
        >
          <div className="flex h-16 items-center justify-between border-b border-border px-3">
            <D.Title className="px-1 text-lg font-semibold">Menu</D.Title>
            <D.Close className="rounded-md p-2 hover:bg-muted focus-visible:outline-none focus-visible:ring-2 focus-visible:ring-ring" aria-label="Close menu">
              <X className="size-5" aria-hidden="true" />
            </D.Close>
          </div>
          <NavItems {...nav} onChoose={() => setOpen(false)} />
        </D.Content>
      </D.Portal>
    </D.Root>
  );
}
