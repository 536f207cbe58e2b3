import { getRequestListener } from '@hono/node-server';
import type { Server } from 'node:http';
import { createApp } from '../app';
import type { AppDeps } from '../deps';
import { createHttpServer } from './http-server';

/** The app on its HTTP server, listening on HOST:PORT; rejects when it cannot listen. */
export function serveApp(deps: AppDeps): Promise<Server> {
  const { config } = deps;
  const app = createApp(deps);
  const server = createHttpServer(config);
  server.on('request', getRequestListener(app.fetch, { hostname: config.host }));
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(config.port, config.host, () => {
      server.off('error', reject);
      resolve(server);
    });
  });
}
