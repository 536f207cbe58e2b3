import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** A request as a stand-in's handler sees it: its body read whole (up to 1 MiB) as text. */
export type StandInRequest = { method: string; url: URL; headers: IncomingMessage['headers']; body: string };

/**
 * A plain HTTP server on a free loopback port for the outside services' stand-ins. `stop` closes
 * every connection, also those a handler left unanswered on purpose (a service that hangs).
 */
export async function startHttpStandIn(
  handle: (req: StandInRequest, res: ServerResponse) => void | Promise<void>,
): Promise<{ url: string; stop(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= 1024 * 1024) chunks.push(c);
    });
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://stand-in');
      Promise.resolve(handle({ method: req.method ?? 'GET', url, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') }, res)).catch(
        (e: unknown) => {
          res.writeHead(500).end(String(e));
        },
      );
    });
  });
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** Answers `status` with `body` as JSON. */
export function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)), ...headers }).end(text);
}
