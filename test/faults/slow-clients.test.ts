import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server';
import { repeatEvery, resolvesWithin, until } from '../helpers/wait';
import { reloadSchema } from '../rest/fixtures';

/** A raw TCP connection to the server, with what it received and whether the server closed it. */
type Raw = { socket: Socket; received: () => string; closed: Promise<void>; isClosed: () => boolean };

function open(url: string, localAddress = '127.0.0.1'): Promise<Raw> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    let data = '';
    let done = false;
    const socket = connect({ host: hostname, port: Number(port), localAddress });
    socket.setEncoding('utf8');
    socket.on('data', (d: string) => (data += d));
    socket.on('error', () => {});
    const closed = new Promise<void>((r) => socket.on('close', () => ((done = true), r())));
    socket.once('connect', () => resolve({ socket, received: () => data, closed, isClosed: () => done }));
    socket.once('error', reject);
  });
}

/** GET over a fresh connection from `localAddress` (any 127.x address reaches loopback on Linux). */
function get(url: string, localAddress: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { localAddress, agent: false }, (res) => {
      res.resume();
      resolve(res.statusCode!);
    });
    req.on('error', reject);
    req.end();
  });
}

describe('slow clients', () => {
  let s: TestServer;
  const sockets: Raw[] = [];
  const track = async (p: Promise<Raw>) => {
    const raw = await p;
    sockets.push(raw);
    return raw;
  };

  beforeAll(async () => {
    s = await startTestServer({ REQUEST_TIMEOUT_SECONDS: '1', MAX_CONNECTIONS_PER_ADDRESS: '8' });
  });
  afterEach(() => {
    for (const raw of sockets.splice(0)) raw.socket.destroy();
  });
  afterAll(() => s.stop());

  it('closes a connection whose headers never finish', async () => {
    const raw = await track(open(s.url));
    raw.socket.write(`GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n`);
    // A header byte now and then, as slowloris sends them, never the blank line that ends them.
    const stopDripping = repeatEvery(200, 'a slowloris client: one header byte at a time, never the end', () => raw.socket.writable && raw.socket.write('X'));
    try {
      expect(await resolvesWithin(raw.closed, 20_000)).toBe(true);
    } finally {
      stopDripping();
    }
    expect(raw.received()).toMatch(/^HTTP\/1\.1 408/);
    expect((await fetch(`${s.url}/healthz`)).status).toBe(200);
  });

  it('closes a connection whose body never finishes, and keeps answering others', async () => {
    const raw = await track(open(s.url));
    raw.socket.write(
      `POST /rest/v1/rpc/anything HTTP/1.1\r\nHost: 127.0.0.1\r\napikey: ${s.anonKey}\r\n` +
        `Content-Type: application/json\r\nContent-Length: 100000\r\n\r\n{"a":`,
    );
    expect(await resolvesWithin(raw.closed, 20_000)).toBe(true);
    expect((await fetch(`${s.url}/healthz`)).status).toBe(200);
  });

  it('closes a connection that sends nothing at all', async () => {
    const raw = await track(open(s.url));
    expect(await resolvesWithin(raw.closed, 20_000)).toBe(true);
  });

  it('lets a complete request take longer than the timeout to be answered', async () => {
    await s.deps.db.exec(`create or replace function public.slow_answer() returns int language sql volatile as $$ select 1 from pg_sleep(1.5) $$`);
    await reloadSchema(s);
    const { data, error } = await s.serviceClient().rpc('slow_answer');
    expect(error).toBeNull();
    expect(data).toBe(1);
  });
});

describe('connections per address', () => {
  let s: TestServer;
  const sockets: Raw[] = [];

  beforeAll(async () => {
    // Nothing else of this test holds a connection from 127.0.0.1 to this server.
    s = await startTestServer({ MAX_CONNECTIONS_PER_ADDRESS: '8' });
  });
  afterAll(async () => {
    for (const raw of sockets) raw.socket.destroy();
    await s.stop();
  });

  it('refuses connections beyond the cap of one address while other addresses are answered', async () => {
    // Connections that started a request and hold it open, as a slow client does.
    const held = await Promise.all(Array.from({ length: 8 }, () => open(s.url)));
    for (const raw of held) raw.socket.write(`GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n`);
    sockets.push(...held);
    const extra = await open(s.url);
    sockets.push(extra);
    expect(await resolvesWithin(extra.closed, 10_000)).toBe(true);
    expect(extra.received()).toBe('');
    expect(held.every((raw) => !raw.isClosed())).toBe(true);

    expect(await get(`${s.url}/healthz`, '127.0.0.2')).toBe(200);

    // A closed connection frees its place, once the server has seen it close: until then a new
    // one from 127.0.0.1 is still refused (closed without an answer), after that it is answered.
    held[0]!.socket.destroy();
    await held[0]!.closed;
    const status = await until(
      'the server to free the place of the closed connection',
      () => get(`${s.url}/healthz`, '127.0.0.1').catch(() => false as const),
      10_000,
    );
    expect(status).toBe(200);
  });
});
