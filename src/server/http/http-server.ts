import { createServer, type Server, type ServerOptions } from 'node:http';
import type { Socket } from 'node:net';
import type { Config } from '../env';
import { addressKey, isTrustedProxy } from './client-ip';

/** How long an idle keep-alive connection waits for its next request (a browser's next click reuses it). */
export const KEEP_ALIVE_TIMEOUT_MS = 5_000;

/**
 * Timeouts that cut a slow client off. A request's headers and its whole body must arrive within
 * REQUEST_TIMEOUT_SECONDS, or the connection is answered 408 and closed; handling the request
 * afterwards is not limited by it. Node looks for expired requests only every
 * connectionsCheckingInterval (30 s by default), so it looks more often than the timeout.
 */
export function httpServerOptions(config: Pick<Config, 'requestTimeoutSeconds'>): ServerOptions {
  const timeout = config.requestTimeoutSeconds * 1000;
  return {
    headersTimeout: timeout,
    requestTimeout: timeout,
    keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
    connectionsCheckingInterval: Math.min(1_000, timeout / 4),
  };
}

/**
 * Refuses a client's connections beyond `max` at once, closing each extra one as it is accepted,
 * so that one client cannot hold the process's file descriptors and the memory each connection
 * costs. Connections from a trusted proxy (TRUST_PROXY) are not counted: they carry many clients,
 * and the proxy is where their connections are limited.
 */
export function limitConnectionsPerAddress(server: Server, config: Pick<Config, 'maxConnectionsPerAddress' | 'trustProxy'>): void {
  const open = new Map<string, number>();
  server.on('connection', (socket: Socket) => {
    const address = socket.remoteAddress;
    if (!address || isTrustedProxy(address, config.trustProxy)) return;
    const key = addressKey(address);
    const count = (open.get(key) ?? 0) + 1;
    if (count > config.maxConnectionsPerAddress) {
      socket.destroy();
      return;
    }
    open.set(key, count);
    socket.once('close', () => {
      const left = (open.get(key) ?? 1) - 1;
      if (left > 0) open.set(key, left);
      else open.delete(key);
    });
  });
}

/** The HTTP server of `npm start` and of the tests, with its timeouts and connection limit; requests are handled by whoever listens for 'request'. */
export function createHttpServer(config: Pick<Config, 'requestTimeoutSeconds' | 'maxConnectionsPerAddress' | 'trustProxy'>): Server {
  const server = createServer(httpServerOptions(config));
  limitConnectionsPerAddress(server, config);
  return server;
}
