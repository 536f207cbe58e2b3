import { describe, expect, it } from 'vitest';
import { type CsvCell, csvNumber, toCsv } from './csv';

/** The one line of a CSV of one row, without its BOM and CRLF. */
const line = (...cells: CsvCell[]) =>
  toCsv([cells])
    .replace(/^\uFEFF/, '')
    .replace(/\r\n$/, '');

// Item 7 of issue 33: OWASP's CSV Injection rule for every export.
describe('toCsv', () => {
  it('quotes every cell, doubles quotes, keeps commas and line breaks inside, and ends lines in CRLF after a BOM', () => {
    expect(
      toCsv([
        ['a', 'b'],
        ['', 'plain text'],
      ]),
    ).toBe('\uFEFF"a","b"\r\n"","plain text"\r\n');
    expect(line('Refund for "alpha", sorry\nsecond line\r\nthird')).toBe('"Refund for ""alpha"", sorry\nsecond line\r\nthird"');
  });

  it.each([
    ['=', '=HYPERLINK("http://evil.test")', `"'=HYPERLINK(""http://evil.test"")"`],
    ['+', '+1+cmd', `"'+1+cmd"`],
    ['-', '-2+3+cmd', `"'-2+3+cmd"`],
    ['@', '@SUM(A1:A9)', `"'@SUM(A1:A9)"`],
    ['a tab', '\t=1+1', `"'\t=1+1"`],
    ['a carriage return', '\r=1+1', `"'\r=1+1"`],
    ['a line feed', '\n=1+1', `"'\n=1+1"`],
  ])('puts an apostrophe before a text cell that starts with %s', (_, text, written) => {
    expect(line(text)).toBe(written);
  });

  it('puts an apostrophe after a comma or semicolon a spreadsheet may split at, when a formula would start there', () => {
    expect(line('Refund;=HYPERLINK("http://evil.test")')).toBe(`"Refund;'=HYPERLINK(""http://evil.test"")"`);
    expect(line('a,+1')).toBe(`"a,'+1"`);
    expect(line('a; -1')).toBe(`"a;' -1"`);
    expect(line('a,"@x"')).toBe(`"a,'""@x"""`);
    expect(line('a;\tb')).toBe(`"a;'\tb"`);
    // Both rules at once, as in OWASP's examples.
    expect(line('=1+2";=1+2')).toBe(`"'=1+2"";'=1+2"`);
    expect(line('=1+2\'" ;,=1+2')).toBe(`"'=1+2'"" ;,'=1+2"`);
  });

  it('leaves other text as it is', () => {
    expect(line('Node gala-1, renewed; thank you', 'a-b', 'x=y', 'e-mail@example.com', '2026-03-01T10:00:00.000Z')).toBe(
      '"Node gala-1, renewed; thank you","a-b","x=y","e-mail@example.com","2026-03-01T10:00:00.000Z"',
    );
  });

  it('writes a number cell as a number, a negative one without an apostrophe, and refuses what is not a finite number', () => {
    expect(line(csvNumber(-10, 2), csvNumber(12.5, 2), csvNumber(0, 2), '-10.00')).toBe(`"-10.00","12.50","0.00","'-10.00"`);
    expect(() => csvNumber(Number.NaN, 2)).toThrow(RangeError);
    expect(() => csvNumber(Number.POSITIVE_INFINITY, 2)).toThrow(RangeError);
  });
});
