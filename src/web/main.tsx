import { StrictMode } from 'react';
import { createRoot, hydrateRoot } from 'react-dom/client';
import { BrowserRouter, matchPath } from 'react-router';
import { App } from './app/app';
import { notFoundRoute, routes } from './app/routes';
import { createQueryClient } from './lib/query-client';
import './index.css';

const container = document.getElementById('root')!;
const app = (
  <StrictMode>
    <BrowserRouter>
      <App queryClient={createQueryClient()} />
    </BrowserRouter>
  </StrictMode>
);

if (container.hasChildNodes()) {
  // A prerendered page: load its chunk first so hydration finds the same tree the build rendered.
  const match = routes.find((r) => matchPath(r.path, window.location.pathname)) ?? notFoundRoute;
  void match.load().finally(() => hydrateRoot(container, app));
} else {
  createRoot(container).render(app);
}
