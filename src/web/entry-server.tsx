import { prerenderToNodeStream } from 'react-dom/static';
import { StaticRouter } from 'react-router';
import { App } from './app/app';
import { loadInitialRoute, routes } from './app/routes';
import { createQueryClient } from './lib/query-client';
import { HeadContext, type HeadCollector } from './lib/seo';

export { routes };

/** Renders one route to HTML at build time, waiting for its lazy chunk; returns the markup and the head tags. */
export async function render(url: string): Promise<{ html: string; head: string }> {
  let head = '';
  const collect: HeadCollector = (tags) => (head = tags);
  const queryClient = createQueryClient();
  const initial = await loadInitialRoute(url);
  const { prelude } = await prerenderToNodeStream(
    <HeadContext.Provider value={collect}>
      <StaticRouter location={url}>
        <App queryClient={queryClient} initial={initial} />
      </StaticRouter>
    </HeadContext.Provider>,
    // React outlines a large Suspense boundary and reveals it with an inline script, which our CSP
    // (script-src 'self') refuses: a static page is written whole instead.
    { progressiveChunkSize: Number.POSITIVE_INFINITY },
  );
  let html = '';
  for await (const chunk of prelude) html += String(chunk);
  // Its garbage-collection timers (10 minutes) would otherwise keep the build process alive.
  queryClient.clear();
  return { html, head };
}
