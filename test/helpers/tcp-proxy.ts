import { createServer, connect, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

/** A TCP proxy a test can cut (as if the database went away), stall (as if it hung) and restore, on the same port. */
export type TcpProxy = {
  port: number;
  /** Drops every open connection and refuses new ones (ECONNREFUSED). */
  cut(): Promise<void>;
  /** Accepts connections again. */
  restore(): Promise<void>;
  /**
   * Holds every byte, both ways, on open connections and new ones, closing nothing: as a server
   * paused with SIGSTOP, whose kernel still accepts connections and data but which answers nothing.
   */
  stall(): void;
  /** Delivers what was held, in order, and forwards again. */
  resume(): void;
  close(): Promise<void>;
};

/** Starts a proxy on 127.0.0.1 to `target`. */
export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  const track = (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  };
  // What a stall holds: each chunk (or end, null) with the socket it goes to, in arrival order.
  let held: [Socket, Buffer | null][] | undefined;
  const send = (to: Socket, chunk: Buffer | null) => {
    if (held) held.push([to, chunk]);
    else if (chunk) to.write(chunk);
    else to.end();
  };
  const forward = (from: Socket, to: Socket) => {
    from.on('data', (chunk: Buffer) => send(to, chunk));
    from.on('end', () => send(to, null));
    from.on('error', () => to.destroy());
  };
  const newServer = () =>
    createServer((client) => {
      const upstream = connect(target.port, target.host);
      track(client);
      track(upstream);
      forward(client, upstream);
      forward(upstream, client);
    });
  const listen = (server: Server, port: number) =>
    new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve());
    });
  const stop = async (server: Server) => {
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    held = undefined;
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
    stall() {
      held ??= [];
    },
    resume() {
      const pending = held ?? [];
      held = undefined;
      for (const [to, chunk] of pending) if (!to.destroyed) send(to, chunk);
    },
    async close() {
      if (open) await stop(server);
      open = false;
    },
  };
}
