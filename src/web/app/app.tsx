import { lazy, Suspense, useEffect, useRef, type ComponentType } from 'react';
import { Route, Routes, useLocation } from 'react-router';
import { SiteFooter } from '@/components/layout/site-footer';
import { SiteHeader } from '@/components/layout/site-header';
import { TestPaymentsBanner } from '@/components/layout/test-payments-banner';
import { Spinner } from '@/components/ui/spinner';
import { ToastHost } from '@/components/ui/toast-host';
import { isAppPath } from '@/config/paths';
import { AuthProvider } from '@/lib/auth';
import { ProtectedRoute } from '@/features/auth/components/protected-route';
import { DevAccessGate } from '@/features/dev-access/components/dev-access-gate';
import { ThemeProvider } from '@/lib/theme';
import { leftFirstPage } from '@/lib/deferred-hydration';
import { notFoundRoute, routes } from './routes';

/** Spec §2: every route change starts at the top of the page; the first one also ends deferred hydration. */
function RouteChangeEffects() {
  const { pathname } = useLocation();
  // A block body: newer browsers return a promise from scrollTo, which React would take for a cleanup.
  useEffect(() => {
    window.scrollTo(0, 0);
  }, [pathname]);
  const firstPath = useRef(pathname);
  useEffect(() => {
    if (pathname !== firstPath.current) leftFirstPage();
  }, [pathname]);
  return null;
}

/**
 * The first route's page, already loaded: rendered directly instead of through React.lazy, so the
 * prerendered HTML has no pending Suspense boundary (whose reveal needs inline scripts our CSP
 * refuses) and hydration finds the very same tree.
 */
export type InitialRoute = { path: string; Component: ComponentType };

const QueryProvider = lazy(() => import('./query-provider'));

export function App({ initial }: { initial?: InitialRoute }) {
  const pageFor = (path: string, Lazy: ComponentType) => (initial?.path === path ? <initial.Component /> : <Lazy />);
  // The dashboard and admin area bring their own sidebar and header (spec §2).
  const siteChrome = !isAppPath(useLocation().pathname);
  return (
    <AuthProvider>
      <ThemeProvider>
        <RouteChangeEffects />
        {/* Outside the gate: a development host's block page says it too. */}
        <TestPaymentsBanner />
        <DevAccessGate>
          <div className="flex min-h-screen flex-col">
            <a
              href="#main"
              className="sr-only focus:not-sr-only focus:absolute focus:left-4 focus:top-4 focus:z-50 focus:rounded focus:bg-background focus:px-4 focus:py-2"
            >
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
                        guarded ? (
                          <ProtectedRoute>
                            <QueryProvider>{pageFor(path, Component)}</QueryProvider>
                          </ProtectedRoute>
                        ) : (
                          pageFor(path, Component)
                        )
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
  );
}
