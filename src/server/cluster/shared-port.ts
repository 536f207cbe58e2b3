import type { SendHandle } from 'node:child_process';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AppDeps } from '../deps';
import { serveApp, type ListenTarget } from '../http/serve';
import { isMessage, toPrimary } from './messages';

/**
 * In an HTTP process: asks the primary where to listen, and serves the app there: the first
 * process opens HOST:PORT (exclusive: the socket is not node:cluster's) and passes its socket to
 * the primary; every other one listens on that socket, as the primary passes it on
 * (http-processes.ts, decision 034).
 */
export async function serveOnSharedPort(deps: AppDeps): Promise<Server> {
  const { port, host } = deps.config;
  const target = await new Promise<ListenTarget>((resolve, reject) => {
    const onMessage = (message: unknown, socket?: SendHandle) => {
      if (!isMessage(message, 'nodeharbor:listen')) return;
      process.off('message', onMessage);
      if (message.open) resolve({ port, host, exclusive: true });
      else if (socket) resolve({ handle: socket });
      else reject(new Error('the primary passed on no socket to listen on'));
    };
    process.on('message', onMessage);
    toPrimary({ type: 'nodeharbor:ready' });
  });
  const server = await serveApp(deps, target);
  const opened = !('handle' in target);
  // The listening socket's own handle: what server.listen(handle) takes, and child_process passes as it is.
  const socket = opened ? (server as unknown as { _handle: SendHandle })._handle : undefined;
  toPrimary({ type: 'nodeharbor:listening', port: (server.address() as AddressInfo).port }, socket);
  return server;
}
