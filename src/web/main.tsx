import { StrictMode } from 'react';
import { createRoot, hydrateRoot } from 'react-dom/client';
import { BrowserRouter } from 'react-router';
import { App } from './app/app';
import { loadInitialRoute } from './app/routes';
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
  // A prerendered page is hydrated; the shell of client-only routes (200.html) is rendered.
  if (container.hasChildNodes()) hydrateRoot(container, app);
  else createRoot(container).render(app);
});
