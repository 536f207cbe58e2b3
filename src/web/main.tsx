import { StrictMode, startTransition } from 'react';
import { createRoot, hydrateRoot } from 'react-dom/client';
import { BrowserRouter } from 'react-router';
import { App } from './app/app';
import { loadInitialRoute } from './app/routes';
import { leftFirstPage } from './lib/deferred-hydration';
import './index.css';

const container = document.getElementById('root')!;

void loadInitialRoute(window.location.pathname).then((initial) => {
  const app = (
    <StrictMode>
      <BrowserRouter>
        <App initial={initial} />
      </BrowserRouter>
    </StrictMode>
  );
  // A prerendered page is hydrated; the shell of client-only routes (200.html) is rendered, and
  // with no server HTML to keep, nothing waits for an interaction (a redirect to /login gives none).
  // In a transition, hydration yields to the browser every few milliseconds instead of holding the
  // main thread for the whole page (an ordinary hydration is one blocking task).
  if (container.hasChildNodes()) startTransition(() => void hydrateRoot(container, app));
  else {
    leftFirstPage();
    createRoot(container).render(app);
  }
});
