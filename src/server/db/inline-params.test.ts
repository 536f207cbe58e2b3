import { describe, expect, it } from 'vitest';
import { inlineParams, sqlLiteral } from './inline-params';

describe('sqlLiteral', () => {
  it('writes an E string with quotes and backslashes doubled, and null as NULL', () => {
    expect(sqlLiteral(`it's a \\ test`)).toBe(`E'it''s a \\\\ test'`);
    expect(sqlLiteral(null)).toBe('null');
    expect(sqlLiteral(12)).toBe(`E'12'`);
  });

  it('refuses what PostgreSQL would refuse or what has no literal', () => {
    expect(() => sqlLiteral('a\u0000b')).toThrow();
    expect(() => sqlLiteral({})).toThrow();
  });
});

describe('inlineParams', () => {
  it('replaces each placeholder, $10 not read as $1 followed by 0', () => {
    const params = Array.from({ length: 10 }, (_, i) => `v${i + 1}`);
    expect(inlineParams('select $1::text, $10', params)).toBe(`select E'v1'::text, E'v10'`);
  });

  it('leaves placeholders inside quoted identifiers, strings and comments as text', () => {
    const sql = `select "a$1""b" as x, 'it''s $1' -- $1\n, $1 /* $1 */`;
    expect(inlineParams(sql, [`"); drop table t; --`])).toBe(`select "a$1""b" as x, 'it''s $1' -- $1\n, E'"); drop table t; --' /* $1 */`);
  });

  it('keeps $ inside an identifier, and refuses dollar quoting and missing parameters', () => {
    expect(inlineParams('select a$1 from t where b = $1', ['x'])).toBe(`select a$1 from t where b = E'x'`);
    expect(() => inlineParams('select $$x$$', [])).toThrow();
    expect(() => inlineParams('select $2', ['x'])).toThrow();
    expect(() => inlineParams(`select 'open`, [])).toThrow();
  });
});
