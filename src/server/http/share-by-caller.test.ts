import { describe, expect, it } from 'vitest';
import { addressKey } from './client-ip';

describe('addressKey', () => {
  it('counts an IPv4 address as itself, mapped or not', () => {
    expect(addressKey('203.0.113.7')).toBe('203.0.113.7');
    expect(addressKey('::ffff:203.0.113.7')).toBe('203.0.113.7');
  });

  it('counts every address of one IPv6 /64 as one, however it is written', () => {
    const one = '2001:db8:1:2::/64';
    for (const ip of ['2001:db8:1:2::1', '2001:DB8:1:2:ffff:ffff:ffff:ffff', '2001:0db8:0001:0002:0:0:0:9', '2001:db8:1:2::1%eth0']) {
      expect(addressKey(ip)).toBe(one);
    }
    expect(addressKey('2001:db8:1:3::1')).not.toBe(one);
    expect(addressKey('::1')).toBe('0:0:0:0::/64');
    expect(addressKey('2001:db8::')).toBe('2001:db8:0:0::/64');
  });

  it('leaves what is not an address alone', () => {
    expect(addressKey('unknown')).toBe('unknown');
  });
});
