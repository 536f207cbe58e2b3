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

/** The data line of a ledger of one transaction. */
const lineOf = (over: Partial<Transaction>) => ledgerCsv([row(over)]).split('\r\n')[1];

describe('ledgerCsv', () => {
  it('writes a header, ISO dates, types in words and amounts with two decimals, every cell quoted', () => {
    const csv = ledgerCsv([
      row({}),
      row({ id: 't2', type: 'service_charge', amount: -3, description: 'Node', service_id: 's1', created_at: '2026-03-02 11:30:00.5+01' }),
    ]);
    expect(csv).toBe(
      '\uFEFF"Date","Type","Description","Amount","Transaction ID","Service ID"\r\n' +
        '"2026-03-01T10:00:00.000Z","Purchase","Credit purchase","10.00","t1",""\r\n' +
        '"2026-03-02T10:30:00.500Z","Service charge","Node","-3.00","t2","s1"\r\n',
    );
  });

  it('keeps a comma, a quote or a line break inside its cell, doubling its quotes', () => {
    expect(lineOf({ description: 'Refund for "alpha", sorry\nsecond line' })).toContain(',"Refund for ""alpha"", sorry\nsecond line","10.00",');
  });

  // Item 7 of issue 33: a description is the one cell a user's words reach (a service's name, an
  // admin's note); it must not run in a spreadsheet, at its start or after a separator.
  it('keeps a spreadsheet from running a description as a formula, but leaves a negative amount a number', () => {
    const cells = (description: string) => lineOf({ description, amount: -12.5 });
    expect(cells('=HYPERLINK("x")')).toContain(`,"'=HYPERLINK(""x"")","-12.50",`);
    expect(cells('+1')).toContain(`,"'+1",`);
    expect(cells('-1')).toContain(`,"'-1",`);
    expect(cells('@SUM(A1)')).toContain(`,"'@SUM(A1)",`);
    expect(cells('\tcmd')).toContain(`,"'\tcmd",`);
    expect(cells('\rcmd')).toContain(`,"'\rcmd",`);
    expect(cells('Node a;=HYPERLINK("x")')).toContain(`,"Node a;'=HYPERLINK(""x"")",`);
    expect(cells('Node a,-2+3+cmd')).toContain(`,"Node a,'-2+3+cmd",`);
    expect(cells('plain')).toContain(`,"plain","-12.50",`);
  });
});

describe('ledgerCsvName', () => {
  it("is dated today in the user's time zone", () => {
    const now = new Date('2026-03-01T23:30:00Z');
    expect(ledgerCsvName(now, 'UTC')).toBe('nodeharbor-transactions-2026-03-01.csv');
    expect(ledgerCsvName(now, 'Asia/Tokyo')).toBe('nodeharbor-transactions-2026-03-02.csv');
  });
});
