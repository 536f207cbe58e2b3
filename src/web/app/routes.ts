import { lazy, type ComponentType, type LazyExoticComponent } from 'react';
import { matchPath } from 'react-router';
import { paths } from '@/config/paths';

type Loader = () => Promise<{ default: ComponentType }>;

export type AppRoute = {
  path: string;
  load: Loader;
  Component: LazyExoticComponent<ComponentType>;
  /** Written to static HTML at build time. */
  prerender: boolean;
  /** Listed in sitemap.xml. */
  sitemap: boolean;
  protected?: boolean;
};

function route(path: string, load: Loader, opts: { prerender?: boolean; sitemap?: boolean; protected?: boolean } = {}): AppRoute {
  return { path, load, Component: lazy(load), prerender: opts.prerender ?? true, sitemap: opts.sitemap ?? true, protected: opts.protected };
}

/** Every route of spec §2. Each page is its own chunk, so a page loads only its own code. */
export const routes: AppRoute[] = [
  route(paths.home, () => import('./routes/public/home-page')),
  route(paths.about, () => import('./routes/public/about-page')),
  route(paths.contact, () => import('./routes/public/contact-page')),
  route(paths.terms, () => import('./routes/public/terms-page')),
  route(paths.privacy, () => import('./routes/public/privacy-page')),
  route(paths.cookies, () => import('./routes/public/cookies-page')),
  route(paths.galaHostNode, () => import('./routes/public/gala-host-node-page')),
  route(paths.galaApiKey, () => import('./routes/public/gala-api-key-page')),
  route(paths.playa3ullHostNode, () => import('./routes/public/playa3ull-host-node-page')),
  route(paths.playa3ullLicenseKey, () => import('./routes/public/playa3ull-license-key-page')),
  route(paths.login, () => import('./routes/auth/login-page'), { sitemap: true }),
  route(paths.register, () => import('./routes/auth/register-page'), { sitemap: false }),
  route(paths.resetPassword, () => import('./routes/auth/reset-password-page'), { sitemap: false }),
  route(paths.resetPasswordConfirm, () => import('./routes/auth/reset-password-confirm-page'), { sitemap: false }),
  route(`${paths.dashboard}/*`, () => import('./routes/dashboard/dashboard-page'), { prerender: false, sitemap: false, protected: true }),
  route(paths.admin, () => import('./routes/admin/admin-page'), { prerender: false, sitemap: false, protected: true }),
  route(paths.adminUser(':userId'), () => import('./routes/admin/admin-user-page'), { prerender: false, sitemap: false, protected: true }),
];

export const notFoundRoute = route('*', () => import('./routes/public/not-found-page'), { sitemap: false });

/** The route that shows `pathname`, and its page loaded: what the first render needs (see InitialRoute). */
export async function loadInitialRoute(pathname: string): Promise<{ path: string; Component: ComponentType }> {
  const r = routes.find((x) => matchPath(x.path, pathname)) ?? notFoundRoute;
  return { path: r.path, Component: (await r.load()).default };
}
