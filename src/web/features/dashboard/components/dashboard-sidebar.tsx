import { CreditCard, LayoutDashboard, LogOut, PanelLeftClose, PanelLeftOpen, Server, Settings, Shield, User } from 'lucide-react';
import type { ComponentType } from 'react';
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

/** The dashboard's navigation; collapsed it shows icons only and names them for assistive technology. */
export function DashboardSidebar({
  collapsed,
  onToggle,
  isAdmin,
  onSignOut,
}: {
  collapsed: boolean;
  onToggle: () => void;
  isAdmin: boolean;
  onSignOut: () => void;
}) {
  const items: Item[] = isAdmin ? [...ITEMS, { to: paths.admin, label: 'Admin Dashboard', icon: Shield }] : ITEMS;
  return (
    <aside className={cn('sticky top-0 flex h-screen shrink-0 flex-col border-r border-border bg-card transition-[width]', collapsed ? 'w-16' : 'w-60')}>
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
      <nav aria-label="Dashboard" className="flex-1 space-y-1 p-2">
        {items.map(({ to, label, icon: Icon, end }) => (
          <NavLink
            key={to}
            to={to}
            end={end}
            title={collapsed ? label : undefined}
            className={({ isActive }) => cn(itemClass, collapsed && 'justify-center px-0', isActive && 'bg-muted text-primary')}
          >
            <Icon className="size-5 shrink-0" aria-hidden="true" />
            <span className={cn(collapsed && 'sr-only')}>{label}</span>
          </NavLink>
        ))}
      </nav>
      <div className="border-t border-border p-2">
        <button type="button" onClick={onSignOut} className={cn(itemClass, 'w-full', collapsed && 'justify-center px-0')}>
          <LogOut className="size-5 shrink-0" aria-hidden="true" />
          <span className={cn(collapsed && 'sr-only')}>Sign out</span>
        </button>
      </div>
    </aside>
  );
}
