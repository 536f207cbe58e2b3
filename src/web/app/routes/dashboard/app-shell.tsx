import { useState, type ReactNode } from 'react';
import { useNavigate } from 'react-router';
import { paths } from '@/config/paths';
import { useProfile } from '@/features/account/api/get-profile';
import { useIsAdmin } from '@/features/admin/api/get-is-admin';
import { signOut } from '@/features/dashboard/api/sign-out';
import { DashboardDrawer, DashboardSidebar } from '@/features/dashboard/components/dashboard-sidebar';
import { UserMenu } from '@/features/dashboard/components/user-menu';
import type { SignedInUser } from '@/lib/signed-in-user';
import { FormatProvider } from '@/lib/format';

/**
 * The layout of the signed-in area (dashboard and admin): sidebar (a drawer on phones), a header with
 * the section title and the user menu, and the user's language and time zone for everything below.
 */
export function AppShell({ user, title, children }: { user: SignedInUser; title: string; children: ReactNode }) {
  const [collapsed, setCollapsed] = useState(false);
  const navigate = useNavigate();
  const profile = useProfile(user.id);
  const isAdmin = useIsAdmin(user.id);
  const fullName = profile.data?.full_name ?? user.fullName;

  const onSignOut = () => {
    void signOut().then((ok) => ok && navigate(paths.login, { replace: true }));
  };

  return (
    <FormatProvider prefs={profile.data && { language: profile.data.language, timeZone: profile.data.time_zone }}>
      <div className="flex min-h-screen">
        <DashboardSidebar collapsed={collapsed} onToggle={() => setCollapsed((c) => !c)} isAdmin={isAdmin.data === true} onSignOut={onSignOut} />
        <div className="flex min-w-0 flex-1 flex-col">
          <header className="sticky top-0 z-30 flex h-16 items-center justify-between gap-4 border-b border-border bg-background/95 px-4 backdrop-blur md:px-6">
            <div className="flex min-w-0 items-center gap-2">
              <DashboardDrawer isAdmin={isAdmin.data === true} onSignOut={onSignOut} />
              <h1 className="truncate text-xl font-semibold">{title}</h1>
            </div>
            <UserMenu fullName={fullName} email={user.email} onSignOut={onSignOut} />
          </header>
          <div className="flex-1 p-4 md:p-6">{children}</div>
        </div>
      </div>
    </FormatProvider>
  );
}
