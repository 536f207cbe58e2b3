import { describe, expect, it } from 'vitest';
import type { Transaction } from './api/get-transactions';
import { ledgerCsv, ledgerCsvName } from './ledger-csv';

const row = (over: Partial<Transaction>): Transaction => ({
  id: 't1',
  type: 'purchase',
  description: 'Credit purchase',
  amount: 10,
  created_at: '2026-03-01T10:00:00+00:00',
  service_id: null,
  ...over,
});

describe('ledgerCsv', () => {
  it('writes a header, ISO dates, types in words and amounts with two decimals', () => {
    const csv = ledgerCsv([
      row({}),
      row({ id: 't2', type: 'service_charge', amount: -3, description: 'Node', service_id: 's1', created_at: '2026-03-02 11:30:00.5+01' }),
    ]);
    expect(csv).toBe(
      '\uFEFFDate,Type,Description,Amount,Transaction ID,Service ID\r\n' +
        '2026-03-01T10:00:00.000Z,Purchase,Credit purchase,10.00,t1,\r\n' +
        '2026-03-02T10:30:00.500Z,Service charge,Node,-3.00,t2,s1\r\n',
    );
  });

  it('quotes a cell with a comma, a quote or a line break, doubling its quotes', () => {
    const csv = ledgerCsv([row({ description: 'Refund for "alpha", sorry\nsecond line' })]);
    expect(csv).toContain(',"Refund for ""alpha"", sorry\nsecond line",10.00,');
  });

  it('keeps a spreadsheet from running a description as a formula, but leaves a negative amount a number', () => {
    const cells = (d: string) =>
      ledgerCsv([row({ description: d, amount: -12.5 })])
        .split('\r\n')[1]!
        .split(',');
    expect(cells('=HYPERLINK("x")')[2]).toBe(`"'=HYPERLINK(""x"")"`);
    expect(cells('+1')[2]).toBe("'+1");
    expect(cells('-1')[2]).toBe("'-1");
    expect(cells('@SUM(A1)')[2]).toBe("'@SUM(A1)");
    expect(cells('\tcmd')[2]).toBe("'\tcmd");
    expect(cells('plain')[2]).toBe('plain');
    expect(cells('plain')[3]).toBe('-12.50');
  });
});

describe('ledgerCsvName', () => {
  it("is dated today in the user's time zone", () => {
    const now = new Date('2026-03-01T23:30:00Z');
    expect(ledgerCsvName(now, 'UTC')).toBe('nodeharbor-transactions-2026-03-01.csv');
    expect(ledgerCsvName(now, 'Asia/Tokyo')).toBe('nodeharbor-transactions-2026-03-02.csv');
  });
});
