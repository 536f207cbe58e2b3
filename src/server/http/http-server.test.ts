import { connect, type AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { letTimePass } from '../../../test/helpers/wait';
import { loadConfig } from '../env';
import { addressKey } from './client-ip';
import { createHttpServer, httpServerOptions, KEEP_ALIVE_TIMEOUT_MS } from './http-server';

describe('httpServerOptions', () => {
  it('gives headers and the whole request REQUEST_TIMEOUT_SECONDS, and checks more often than that', () => {
    const o = httpServerOptions({ requestTimeoutSeconds: 30 });
    expect(o).toMatchObject({ headersTimeout: 30_000, requestTimeout: 30_000, keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS });
    expect(o.connectionsCheckingInterval).toBeLessThanOrEqual(1_000);
    expect(httpServerOptions({ requestTimeoutSeconds: 1 }).connectionsCheckingInterval).toBe(250);
  });
});

describe('addressKey', () => {
  it('counts IPv4 addresses alone, IPv4-mapped ones as IPv4', () => {
    expect(addressKey('203.0.113.7')).toBe('203.0.113.7');
    expect(addressKey('::ffff:203.0.113.7')).toBe('203.0.113.7');
  });
  it('counts an IPv6 address by its /64, however it is written', () => {
    const key = '2001:db8:0:1::/64';
    expect(addressKey('2001:db8:0:1::1')).toBe(key);
    expect(addressKey('2001:0DB8:0000:0001:ffff:ffff:ffff:ffff')).toBe(key);
    expect(addressKey('2001:db8:0:1:a::b%eth0')).toBe(key);
    expect(addressKey('2001:db8:0:2::1')).not.toBe(key);
    expect(addressKey('::1')).toBe('0:0:0:0::/64');
    expect(addressKey('fe80::1')).toBe('fe80:0:0:0::/64');
  });
});

describe('an idle keep-alive connection', () => {
  it('is announced with Keep-Alive: timeout=5, and a client that reuses it right at that limit is answered, not reset', async () => {
    const server = createHttpServer(loadConfig({}));
    server.on('request', (_req, res) => res.end('ok'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const socket = connect((server.address() as AddressInfo).port, '127.0.0.1');
    let received = '';
    let closed = false;
    const answers = () => received.split('HTTP/1.1 ').slice(1);
    const waitFor = (n: number) =>
      new Promise<void>((resolve) => {
        const check = () => {
          if (answers().length >= n && received.endsWith('ok')) resolve();
          else if (closed) resolve();
          else socket.once('data', check).once('close', check);
        };
        check();
      });
    socket.on('data', (d: Buffer) => (received += d.toString()));
    socket.on('close', () => (closed = true));
    socket.on('error', () => {});
    try {
      socket.write('GET /first HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
      await waitFor(1);
      const announced = /\r\nKeep-Alive: timeout=(\d+)\r\n/i.exec(received)?.[1];
      expect(announced).toBe(String(KEEP_ALIVE_TIMEOUT_MS / 1000));
      // A client that honours the hint to the letter counts from the answer it read, later than
      // the server's own count began: the server must not close the connection at that moment.
      await letTimePass(Number(announced) * 1000, 'a client reuses its connection at the idle limit the server announced');
      socket.write('GET /second HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
      await waitFor(2);
      expect(answers().map((a) => a.slice(0, 3))).toEqual(['200', '200']);
    } finally {
      socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
