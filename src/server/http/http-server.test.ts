import { describe, expect, it } from 'vitest';
import { addressKey } from './client-ip';
import { httpServerOptions, KEEP_ALIVE_TIMEOUT_MS } from './http-server';

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
