import { QueryClientProvider, type QueryClient } from '@tanstack/react-query';
import { Suspense, useEffect, type ComponentType } from 'react';
import { Route, Routes, useLocation } from 'react-router';
import { SiteFooter } from '@/components/layout/site-footer';
import { SiteHeader } from '@/components/layout/site-header';
import { Spinner } from '@/components/ui/spinner';
import { ToastHost } from '@/components/ui/toast-host';
import { isAppPath } from '@/config/paths';
import { AuthProvider } from '@/features/auth/auth-provider';
import { ProtectedRoute } from '@/features/auth/components/protected-route';
import { DevAccessGate } from '@/features/dev-access/components/dev-access-gate';
import { ThemeProvider } from '@/features/theme/theme-provider';
import { notFoundRoute, routes } from './routes';

/** Spec §2: every route change starts at the top of the page. */
function ScrollToTop() {
  const { pathname } = useLocation();
  // NOTE: a block body. Current Chromium's scrollTo returns a Promise, which React would take
  // for the effect's clean-up function and call on the next navigation (a crash).
  useEffect(() => {
    window.scrollTo(0, 0);
  }, [pathname]);
  return null;
}

/**
 * The first route's page, already loaded: rendered directly instead of through React.lazy, so the
 * prerendered HTML has no pending Suspense boundary (whose reveal needs inline scripts our CSP
 * refuses) and hydration finds the very same tree.
 */
export type InitialRoute = { path: string; Component: ComponentType };

export function App({ queryClient, initial }: { queryClient: QueryClient; initial?: InitialRoute }) {
  const pageFor = (path: string, Lazy: ComponentType) => (initial?.path === path ? <initial.Component /> : <Lazy />);
  // The dashboard and admin area bring their own sidebar and header (spec §2).
  const siteChrome = !isAppPath(useLocation().pathname);
  return (
    <QueryClientProvider client={queryClient}>
      <AuthProvider>
        <ThemeProvider>
          <ScrollToTop />
          <DevAccessGate>
            <div className="flex min-h-screen flex-col">
              <a href="#main" className="sr-only focus:not-sr-only focus:absolute focus:left-4 focus:top-4 focus:z-50 focus:rounded focus:bg-background focus:px-4 focus:py-2">
                Skip to content
              </a>
              {siteChrome && <SiteHeader />}
              <main id="main" className="flex-1">
                <Suspense fallback={<Spinner label="Loading..." />}>
                  <Routes>
                    {routes.map(({ path, Component, protected: guarded }) => (
                      <Route
                        key={path}
                        path={path}
                        element={
                          guarded ? <ProtectedRoute>{pageFor(path, Component)}</ProtectedRoute> : pageFor(path, Component)
                        }
                      />
                    ))}
                    <Route path="*" element={pageFor(notFoundRoute.path, notFoundRoute.Component)} />
                  </Routes>
                </Suspense>
              </main>
              {siteChrome && <SiteFooter />}
            </div>
          </DevAccessGate>
          <ToastHost />
        </ThemeProvider>
      </AuthProvider>
    </QueryClientProvider>
  );
}
