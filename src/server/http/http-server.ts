import { createServer, type Server, type ServerOptions, type ServerResponse } from 'node:http';
import { Server as NetServer, type Socket } from 'node:net';
import type { Config } from '../env';
import { addressKey, isTrustedProxy } from './client-ip';

/**
 * How long an idle keep-alive connection waits for its next request (a browser's next click reuses
 * it). Node announces it (`Keep-Alive: timeout=5`) and closes the connection a second later
 * (nodejs/node#54863, in Node 20.20 and 22), so that a client that honours the hint to the letter
 * does not reuse a connection as it closes; undici (fetch) and Node's own agent retire theirs one
 * or two seconds before the hint.
 */
export const KEEP_ALIVE_TIMEOUT_MS = 5_000;

/**
 * Timeouts that cut a slow client off. A request's headers and its whole body must arrive within
 * REQUEST_TIMEOUT_SECONDS, or the connection is answered 408 and closed; handling the request
 * afterwards is not limited by it. Node looks for expired requests only every
 * connectionsCheckingInterval (30 s by default), so it looks more often than the timeout.
 */
export function httpServerOptions(config: Pick<Config, 'requestTimeoutSeconds'>, keepAliveTimeoutMs = KEEP_ALIVE_TIMEOUT_MS): ServerOptions {
  const timeout = config.requestTimeoutSeconds * 1000;
  return {
    headersTimeout: timeout,
    requestTimeout: timeout,
    keepAliveTimeout: keepAliveTimeoutMs,
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

type Closing = { stopListening(): Promise<void>; closeConnections(): void };
const closings = new WeakMap<Server, Closing>();

/**
 * Keeps track of the requests on each of `server`'s connections, for closeGracefully: once it has
 * begun, the last response on each connection goes out with `Connection: close`, so that the
 * client sends nothing more on it and it closes after that answer.
 */
function trackConnections(server: Server): void {
  const requests = new Map<Socket, Set<ServerResponse>>();
  let closing = false;
  let closed: Promise<void> | undefined;
  // Only the last: Node sends no answer after one with Connection: close, and requests the client
  // sent behind it on the same connection (pipelined) are answered first.
  const closeAfterLast = (responses: Set<ServerResponse>) => {
    const last = [...responses].at(-1);
    for (const res of responses) {
      if (res.headersSent) continue;
      if (res === last) res.setHeader('Connection', 'close');
      else if (res.getHeader('Connection') === 'close') res.removeHeader('Connection');
    }
  };
  server.on('connection', (socket: Socket) => {
    requests.set(socket, new Set());
    socket.once('close', () => requests.delete(socket));
  });
  // Before the app's listener, so that the header is there before the app answers.
  server.prependListener('request', (req, res: ServerResponse) => {
    const responses = requests.get(req.socket);
    if (!responses) return;
    responses.add(res);
    if (closing) closeAfterLast(responses);
    res.once('close', () => responses.delete(res));
  });
  closings.set(server, {
    // NOTE: net's close, not http's: Node's http close() also closes every idle keep-alive
    // connection at once, and a client that keeps a pool of them (fetch's) may be sending a request
    // on any of them at that moment, which would be cut off unanswered. Left alone, an idle
    // connection ends as it always does: its client retires it before the Keep-Alive timeout we
    // announce, or the server closes it a second after (KEEP_ALIVE_TIMEOUT_MS).
    stopListening: () => (closed ??= new Promise<void>((resolve) => NetServer.prototype.close.call(server, () => resolve()))),
    closeConnections() {
      closing = true;
      for (const responses of requests.values()) closeAfterLast(responses);
    },
  });
}

function closingOf(server: Server): Closing {
  const closing = closings.get(server);
  if (!closing) throw new Error('not a server of createHttpServer');
  return closing;
}

/**
 * Stops `server` (one of createHttpServer's) listening, at once: a new connection is refused.
 * Open connections are served as before. Resolves when the last of them has closed.
 */
export function stopListening(server: Server): Promise<void> {
  return closingOf(server).stopListening();
}

/**
 * Stops `server` listening and answers the requests in hand, and any sent meanwhile, the last on
 * each connection with `Connection: close`; an idle keep-alive connection closes at its Keep-Alive
 * timeout, 6 s at most. Resolves when every connection has closed; what is left at the end of the
 * shutdown's grace, the caller cuts (server.closeAllConnections).
 */
export function closeGracefully(server: Server): Promise<void> {
  const closing = closingOf(server);
  const closed = closing.stopListening();
  closing.closeConnections();
  return closed;
}

/**
 * The HTTP server of `npm start` and of the tests, with its timeouts and connection limit; requests
 * are handled by whoever listens for 'request'. `keepAliveTimeoutMs` is for the tests alone.
 */
export function createHttpServer(
  config: Pick<Config, 'requestTimeoutSeconds' | 'maxConnectionsPerAddress' | 'trustProxy'>,
  keepAliveTimeoutMs = KEEP_ALIVE_TIMEOUT_MS,
): Server {
  const server = createServer(httpServerOptions(config, keepAliveTimeoutMs));
  limitConnectionsPerAddress(server, config);
  trackConnections(server);
  return server;
}
