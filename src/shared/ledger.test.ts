import { describe, expect, it } from 'vitest';
import { ledgerMessages, parseLedgerFilters } from './ledger';

describe('parseLedgerFilters', () => {
  it('takes a known type, calendar days and a page, and reads absent or empty as no filter', () => {
    expect(parseLedgerFilters({ type: 'refund', from: '2026-02-01', to: '2026-02-28', page: '3' })).toEqual({
      ok: true,
      filters: { type: 'refund', from: '2026-02-01', to: '2026-02-28', page: 3 },
    });
    expect(parseLedgerFilters({ type: '', from: null, page: '' })).toEqual({ ok: true, filters: { type: null, from: null, to: null, page: 1 } });
    expect(parseLedgerFilters({ from: '2026-02-01', to: '2026-02-01' }).ok).toBe(true);
  });

  it('reads a page that is not a whole number above 0 as page 1', () => {
    for (const page of ['0', '-2', '1.5', 'x', '1e400']) expect(parseLedgerFilters({ page })).toMatchObject({ filters: { page: 1 } });
  });

  it('tells an unknown type, a date that is not a day, and a From after its To', () => {
    expect(parseLedgerFilters({ type: 'gift' })).toEqual({ ok: false, error: ledgerMessages.unknownType('gift') });
    expect(parseLedgerFilters({ from: '2026-02-30' })).toEqual({ ok: false, error: ledgerMessages.badDate('From') });
    expect(parseLedgerFilters({ to: '01/02/2026' })).toEqual({ ok: false, error: ledgerMessages.badDate('To') });
    expect(parseLedgerFilters({ from: '2026-03-02', to: '2026-03-01' })).toEqual({ ok: false, error: ledgerMessages.fromAfterTo });
  });
});
