import { MOBILE_MENU_MAX_HEIGHT_PX } from '@shared/constants';
import { Menu, X } from 'lucide-react';
import { useState } from 'react';
import { Link, useLocation } from 'react-router';
import { Button } from '@/components/ui/button';
import { paths } from '@/config/paths';
import { useAuth } from '@/lib/auth';
import { needsSecondFactor } from '@/lib/second-factor';
import { ThemeToggle } from '@/features/theme/components/theme-toggle';
import { NavDropdown } from './nav-dropdown';
import { navGroups, plainLinks } from './nav-links';
import { Logo } from './logo';

export function SiteHeader() {
  const { pathname } = useLocation();
  // Open for the page it was opened on: choosing a link closes it (spec §2).
  const [openOn, setOpenOn] = useState<string | null>(null);
  const menuOpen = openOn === pathname;
  const auth = useAuth();
  // Between the password and the second factor the visitor is not signed in yet: Login, not Dashboard.
  const signedIn = auth.status === 'signed-in' && !needsSecondFactor(auth.session);

  const accountButtons = signedIn ? (
    <Button asChild size="sm">
      <Link to={paths.dashboard}>Dashboard</Link>
    </Button>
  ) : (
    <>
      <Button asChild variant="outline" size="sm">
        <Link to={paths.login}>Login</Link>
      </Button>
      <Button asChild size="sm">
        <Link to={paths.register}>Register</Link>
      </Button>
    </>
  );

  return (
    <header className="sticky top-0 z-40 border-b border-border bg-background/95 backdrop-blur">
      <div className="mx-auto flex h-16 max-w-6xl items-center justify-between gap-4 px-4">
        <Logo />
        <nav aria-label="Main" className="hidden items-center gap-1 md:flex">
          {navGroups.map((g) => (
            <NavDropdown key={g.label} group={g} />
          ))}
          {plainLinks.map((l) => (
            <Link key={l.to} to={l.to} className="rounded-md px-3 py-2 text-sm font-medium hover:bg-muted">
              {l.label}
            </Link>
          ))}
        </nav>
        <div className="flex items-center gap-2">
          <ThemeToggle />
          <div className="hidden items-center gap-2 md:flex">{accountButtons}</div>
          <Button
            variant="ghost"
            size="icon"
            className="md:hidden"
            aria-expanded={menuOpen}
            aria-controls="mobile-menu"
            aria-label={menuOpen ? 'Close menu' : 'Open menu'}
            onClick={() => setOpenOn(menuOpen ? null : pathname)}
          >
            {menuOpen ? <X className="size-5" aria-hidden="true" /> : <Menu className="size-5" aria-hidden="true" />}
          </Button>
        </div>
      </div>
      <nav
        id="mobile-menu"
        aria-label="Mobile"
        hidden={!menuOpen}
        style={{ maxHeight: MOBILE_MENU_MAX_HEIGHT_PX }}
        className="overflow-y-auto border-t border-border px-4 pb-4 md:hidden"
      >
        {navGroups.map((g) => (
          <div key={g.label} className="pt-3">
            <p className="px-2 text-xs font-semibold uppercase tracking-wide text-muted-foreground">{g.label}</p>
            <ul>
              {g.items.map((i) => (
                <li key={i.to}>
                  <Link to={i.to} className="block rounded-md px-2 py-2 hover:bg-muted">
                    {i.label}
                  </Link>
                </li>
              ))}
            </ul>
          </div>
        ))}
        <ul className="border-t border-border pt-3 mt-3">
          {plainLinks.map((l) => (
            <li key={l.to}>
              <Link to={l.to} className="block rounded-md px-2 py-2 hover:bg-muted">
                {l.label}
              </Link>
            </li>
          ))}
        </ul>
        <div className="mt-3 flex gap-2">{accountButtons}</div>
      </nav>
    </header>
  );
}
