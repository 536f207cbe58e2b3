import { describe, expect, it } from 'vitest';
import { apiTokenMessages, checkAllowedIps, ipAllowed, normaliseAllowedIp } from './api-tokens';

describe('allow-list entries', () => {
  it('reads addresses and ranges in their canonical form, a range by its network address', () => {
    expect(['10.0.0.1', ' 10.1.2.3/8 ', '2001:DB8::1', '2001:db8::1/32', '::ffff:192.0.2.1', '0.0.0.0/0'].map(normaliseAllowedIp)).toEqual([
      '10.0.0.1',
      '10.0.0.0/8',
      '2001:db8::1',
      '2001:db8::/32',
      '192.0.2.1',
      '0.0.0.0/0',
    ]);
  });

  it('refuses what is not an IPv4 or IPv6 address or CIDR range', () => {
    for (const entry of ['10.1', '0x0a000001', '256.1.1.1', '1.2.3.4/33', '::1/129', 'fe80::1%eth0', 'example.com', '1.2.3.4/', '/8']) {
      expect(normaliseAllowedIp(entry), entry).toBeUndefined();
    }
    expect(checkAllowedIps(['10.0.0.1', 'nope'])).toEqual({ error: apiTokenMessages.allowedIpInvalid('nope') });
    expect(checkAllowedIps(['10.0.0.1', '10.0.0.1/32', '10.0.0.1'])).toEqual({ ips: ['10.0.0.1'] });
  });

  it('matches a client by family, an IPv4-mapped address as its IPv4 address', () => {
    expect(ipAllowed('::ffff:10.2.3.4', ['10.0.0.0/8'])).toBe(true);
    expect(ipAllowed('2001:db8:1::5', ['2001:db8::/32'])).toBe(true);
    expect(ipAllowed('127.0.0.1', ['::1'])).toBe(false);
    expect(ipAllowed('192.0.2.1', ['192.0.2.0/24', '2001:db8::/32'])).toBe(true);
    expect(ipAllowed('unknown', ['0.0.0.0/0'])).toBe(false);
  });
});
