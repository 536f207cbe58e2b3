import { describe, expect, it } from 'vitest';
import { requestedTopUp, topUpFor } from './top-up';

describe('a top-up that covers a shortfall', () => {
  it('rounds up to the cent, asks for at least $1 and at most the ceiling, and nothing when nothing is missing', () => {
    expect(topUpFor(5.5)).toBe(5.5);
    expect(topUpFor(10 - 4.3)).toBe(5.7);
    expect(topUpFor(5.501)).toBe(5.51);
    expect(topUpFor(0.2)).toBe(1);
    expect(topUpFor(25_000)).toBe(10_000);
    expect(topUpFor(0)).toBeNull();
    expect(topUpFor(-3)).toBeNull();
    expect(topUpFor(Number.NaN)).toBeNull();
  });

  it('is asked for in the address, and only an amount a top-up can be is taken from it', () => {
    expect(requestedTopUp('5.50')).toBe(5.5);
    expect(requestedTopUp(null)).toBeNull();
    expect(requestedTopUp('')).toBeNull();
    expect(requestedTopUp('0.5')).toBeNull();
    expect(requestedTopUp('1.234')).toBeNull();
    expect(requestedTopUp('abc')).toBeNull();
    expect(requestedTopUp('99999')).toBeNull();
  });
});
