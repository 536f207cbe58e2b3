import { describe, expect, it } from 'vitest';
import { LOCAL_ONLY, metricsAccess, TOKEN_REQUIRED } from './metrics-access';

const TOKEN = 'metrics-token-0123456789abcdef';
const plain = { authorization: undefined, forwarded: false };

describe('who may read /metrics with METRICS_TOKEN set', () => {
  const access = (peer: string, authorization: string | undefined) => metricsAccess({ peer, authorization, forwarded: false }, TOKEN, false);

  it('answers the token from any address', () => {
    expect(access('203.0.113.9', `Bearer ${TOKEN}`)).toEqual({ allowed: true });
    expect(access('127.0.0.1', `bearer ${TOKEN}`)).toEqual({ allowed: true });
  });

  it('refuses 401 without it, even from this machine, and any other token whatever its length', () => {
    const refused = { allowed: false, status: 401, message: TOKEN_REQUIRED };
    expect(access('127.0.0.1', undefined)).toEqual(refused);
    expect(access('203.0.113.9', `Bearer ${'x'.repeat(TOKEN.length)}`)).toEqual(refused);
    expect(access('203.0.113.9', `Bearer ${TOKEN.slice(0, -1)}`)).toEqual(refused);
    expect(access('203.0.113.9', `Bearer ${TOKEN}x`)).toEqual(refused);
    expect(access('203.0.113.9', 'Bearer short')).toEqual(refused);
    expect(access('203.0.113.9', `Basic ${TOKEN}`)).toEqual(refused);
    expect(access('203.0.113.9', `Bearer ${TOKEN} ${TOKEN}`)).toEqual(refused);
    expect(access('203.0.113.9', TOKEN)).toEqual(refused);
  });
});

describe('who may read /metrics without METRICS_TOKEN', () => {
  const refused = { allowed: false, status: 403, message: LOCAL_ONLY };

  it('answers a client on this machine', () => {
    for (const peer of ['127.0.0.1', '127.0.0.2', '::1', '::ffff:127.0.0.1'])
      expect(metricsAccess({ peer, ...plain }, undefined, false)).toEqual({ allowed: true });
  });

  it('refuses 403 a client elsewhere, whatever its X-Forwarded-For says (the caller reads the socket, not the header)', () => {
    for (const peer of ['192.0.2.2', '10.0.0.1', 'fd00::2', '::ffff:192.0.2.2', undefined]) {
      expect(metricsAccess({ peer, ...plain }, undefined, false)).toEqual(refused);
      expect(metricsAccess({ peer, authorization: undefined, forwarded: true }, undefined, { hops: 1 })).toEqual(refused);
    }
  });

  it('refuses 403 a request a proxy on this machine forwards, named by TRUST_PROXY or by its headers', () => {
    expect(metricsAccess({ peer: '127.0.0.1', ...plain }, undefined, { hops: 1 })).toEqual(refused);
    expect(metricsAccess({ peer: '127.0.0.1', ...plain }, undefined, { addresses: ['loopback'] })).toEqual(refused);
    expect(metricsAccess({ peer: '127.0.0.1', authorization: undefined, forwarded: true }, undefined, false)).toEqual(refused);
    // A proxy elsewhere is trusted; this machine's own client is still answered.
    expect(metricsAccess({ peer: '127.0.0.1', ...plain }, undefined, { addresses: ['10.0.0.0/8'] })).toEqual({ allowed: true });
  });
});
