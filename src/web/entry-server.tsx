import { prerenderToNodeStream } from 'react-dom/static';
import { StaticRouter } from 'react-router';
import { App } from './app/app';
import { loadInitialRoute, routes } from './app/routes';
import { createQueryClient } from './lib/query-client';
import { HeadContext, type HeadCollector } from './lib/seo';

export { routes };

/** Renders one route to HTML at build time, waiting for its lazy chunk; returns the markup and the head tags. */
export async function render(url: string): Promise<{ html: string; head: string }> {
  const head: HeadCollector = { tags: '' };
  const queryClient = createQueryClient();
  const initial = await loadInitialRoute(url);
  const { prelude } = await prerenderToNodeStream(
    <HeadContext.Provider value={head}>
      <StaticRouter location={url}>
        <App queryClient={queryClient} initial={initial} />
      </StaticRouter>
    </HeadContext.Provider>,
  );
  let html = '';
  for await (const chunk of prelude) html += String(chunk);
  // Its garbage-collection timers (10 minutes) would otherwise keep the build process alive.
  queryClient.clear();
  return { html, head: head.tags };
}
