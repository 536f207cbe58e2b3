import { describe, expect, it } from 'vitest';
import { centsToDollars, dollarsToCents } from './provider';

describe('money between cents and PayPal dollars', () => {
  it('reads PayPal values exactly, without floating point', () => {
    expect(dollarsToCents('19.99')).toBe(1999);
    expect(dollarsToCents('0.29')).toBe(29);
    expect(dollarsToCents('10')).toBe(1000);
    expect(dollarsToCents('10.5')).toBe(1050);
    expect(dollarsToCents('10000.00')).toBe(1_000_000);
  });

  it('refuses what is not an amount', () => {
    for (const v of ['', '-1.00', '1.234', '1e3', ' 1.00', 12, null, undefined]) expect(dollarsToCents(v)).toBeNaN();
  });

  it('writes two decimals', () => {
    expect(centsToDollars(1999)).toBe('19.99');
    expect(centsToDollars(100)).toBe('1.00');
    expect(centsToDollars(5)).toBe('0.05');
  });
});
