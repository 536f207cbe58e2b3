import { getRequestListener } from '@hono/node-server';
import type { Server } from 'node:http';
import type { ListenOptions } from 'node:net';
import { createApp } from '../app';
import type { AppDeps } from '../deps';
import { createHttpServer } from './http-server';

/**
 * Where a server listens: HOST:PORT as net's options say, or a listening socket another process
 * opened and passed on (its handle, as server.listen(handle) takes it: cluster/shared-port.ts).
 */
export type ListenTarget = ListenOptions | { handle: object };

/** The app on its HTTP server, listening on `target` (HOST:PORT by default); rejects when it cannot listen. */
export function serveApp(deps: AppDeps, target: ListenTarget = { port: deps.config.port, host: deps.config.host }): Promise<Server> {
  const { config } = deps;
  const app = createApp(deps);
  const server = createHttpServer(config);
  server.on('request', getRequestListener(app.fetch, { hostname: config.host }));
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    const listening = () => {
      server.off('error', reject);
      resolve(server);
    };
    if ('handle' in target) server.listen(target.handle, listening);
    else server.listen(target, listening);
  });
}
