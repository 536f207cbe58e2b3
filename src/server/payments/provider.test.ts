import { describe, expect, it } from 'vitest';
import { centsToDollars } from './provider';

describe('cents as PayPal dollars', () => {
  it('writes two decimals', () => {
    expect(centsToDollars(1999)).toBe('19.99');
    expect(centsToDollars(100)).toBe('1.00');
    expect(centsToDollars(5)).toBe('0.05');
  });
});
