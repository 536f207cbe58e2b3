import { createServer, connect, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

/** A TCP proxy a test can cut (as if the database went away) and restore, on the same port. */
export type TcpProxy = {
  port: number;
  /** Drops every open connection and refuses new ones (ECONNREFUSED). */
  cut(): Promise<void>;
  /** Accepts connections again. */
  restore(): Promise<void>;
  close(): Promise<void>;
};

/** Starts a proxy on 127.0.0.1 to `target`. */
export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  const track = (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  };
  const newServer = () =>
    createServer((client) => {
      const upstream = connect(target.port, target.host);
      track(client);
      track(upstream);
      client.on('error', () => upstream.destroy());
      upstream.on('error', () => client.destroy());
      client.pipe(upstream).pipe(client);
    });
  const listen = (server: Server, port: number) =>
    new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve());
    });
  const stop = async (server: Server) => {
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    for (const s of sockets) s.destroy();
    await closed;
  };
  let server = newServer();
  await listen(server, 0);
  const port = (server.address() as AddressInfo).port;
  let open = true;
  return {
    port,
    async cut() {
      if (!open) return;
      open = false;
      await stop(server);
    },
    async restore() {
      if (open) return;
      server = newServer();
      await listen(server, port);
      open = true;
    },
    async close() {
      if (open) await stop(server);
      open = false;
    },
  };
}
