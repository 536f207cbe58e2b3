import { describe, expect, it } from 'vitest';
import { RestError } from './errors';
import { parseFilter, parseOrder, parseQuery, parseSelect, splitQuery } from './parse-query';
import { MAX_LOGIC_DEPTH, MAX_ORDER_TERMS, MAX_SELECT_ITEMS } from './query-limits';

function code(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (e) {
    return e instanceof RestError ? e.code : 'not a RestError';
  }
  return undefined;
}

describe('splitQuery', () => {
  it('keeps order and repeated keys, decodes + as a space', () => {
    expect(splitQuery('?done=is.false&done=neq.true&title=eq.a+b%2Cc')).toEqual([
      ['done', 'is.false'],
      ['done', 'neq.true'],
      ['title', 'eq.a b,c'],
    ]);
  });
  it('refuses broken percent-encoding with PGRST100', () => {
    expect(code(() => splitQuery('a=%E0%A4%A'))).toBe('PGRST100');
  });
});

describe('parseSelect', () => {
  it('reads columns, aliases, casts, quoted names and stars', () => {
    expect(parseSelect('id, label:name, qty::text, "odd, name", *')).toEqual([
      { kind: 'column', column: 'id', alias: undefined, cast: undefined },
      { kind: 'column', column: 'name', alias: 'label', cast: undefined },
      { kind: 'column', column: 'qty', alias: undefined, cast: 'text' },
      { kind: 'column', column: 'odd, name', alias: undefined, cast: undefined },
      { kind: 'star' },
    ]);
  });
  it('reads embedded resources, spreads, JSON paths and aggregates as PostgREST does', () => {
    const star = { kind: 'star' };
    expect(parseSelect('*,d:directors!fk!inner(id),...specs(camera),actors()')).toEqual([
      star,
      {
        kind: 'embed',
        name: 'directors',
        alias: 'd',
        hint: 'fk',
        join: 'inner',
        spread: false,
        select: [{ kind: 'column', column: 'id', alias: undefined, cast: undefined }],
      },
      {
        kind: 'embed',
        name: 'specs',
        alias: undefined,
        hint: undefined,
        join: undefined,
        spread: true,
        select: [{ kind: 'column', column: 'camera', alias: undefined, cast: undefined }],
      },
      { kind: 'embed', name: 'actors', alias: undefined, hint: undefined, join: undefined, spread: false, select: [] },
    ]);
    expect(parseSelect('data->a->>0,x:data->"b.c"::text')).toEqual([
      {
        kind: 'column',
        column: 'data',
        alias: undefined,
        cast: undefined,
        json: [
          { arrow: '->', key: 'a', index: false },
          { arrow: '->>', key: '0', index: true },
        ],
      },
      { kind: 'column', column: 'data', alias: 'x', cast: 'text', json: [{ arrow: '->', key: 'b.c', index: false }] },
    ]);
    expect(parseSelect('count(),total:amount::int.sum()::text')).toEqual([
      { kind: 'count', alias: undefined, cast: undefined },
      { kind: 'column', column: 'amount', alias: 'total', cast: 'int', aggregate: { fn: 'sum', cast: 'text' } },
    ]);
  });
  it('refuses garbage, and embeds beyond their bounds, with PGRST100', () => {
    expect(code(() => parseSelect('a(b(c(d(e(*))))) '))).toBe('PGRST100');
    expect(parseSelect('a(b(c(d(*))))')).toHaveLength(1);
    expect(code(() => parseSelect(Array.from({ length: 17 }, (_, i) => `e${i}(*)`).join(',')))).toBe('PGRST100');
    expect(parseSelect(Array.from({ length: 16 }, (_, i) => `e${i}(*)`).join(','))).toHaveLength(16);
    expect(code(() => parseSelect('count(*)'))).toBe('PGRST100');
    expect(code(() => parseSelect('a!b!c!d(*)'))).toBe('PGRST100');
    expect(code(() => parseSelect('*,('))).toBe('PGRST100');
    expect(code(() => parseSelect('a(b'))).toBe('PGRST100');
    expect(code(() => parseSelect('id::int;'))).toBe('PGRST100');
  });
});

describe('parseFilter', () => {
  it('takes everything after the operator as the value', () => {
    expect(parseFilter('note', 'eq.a.b,c(d)')).toEqual({ column: 'note', negate: false, op: 'eq', value: 'a.b,c(d)' });
  });
  it('reads not., is, in lists with quotes, and like stars', () => {
    expect(parseFilter('a', 'not.is.NULL')).toEqual({ column: 'a', negate: true, op: 'is', value: 'null' });
    expect(parseFilter('a', 'in.(1,"x,y","q\\"r",)')).toMatchObject({ value: ['1', 'x,y', 'q"r', ''] });
    expect(parseFilter('a', 'ilike.*abc*')).toMatchObject({ value: '%abc%' });
  });
  it('refuses unknown operators and malformed values', () => {
    expect(code(() => parseFilter('a', 'between.1'))).toBe('PGRST100');
    expect(code(() => parseFilter('a', 'is.yes'))).toBe('PGRST100');
    expect(code(() => parseFilter('a', 'in.(1'))).toBe('PGRST100');
    expect(code(() => parseFilter('a->b', 'eq.1'))).toBe('PGRST100');
  });
});

describe('parseFilter: full-text search, quantifiers and ranges', () => {
  const base = { column: 'c', negate: false };
  it('reads fts, plfts, phfts and wfts with an optional language, spaces around it dropped', () => {
    expect(parseFilter('c', 'fts(english).fat & cat')).toEqual({ ...base, op: 'fts', language: 'english', value: 'fat & cat' });
    expect(parseFilter('c', 'not.plfts.The Fat Cats')).toEqual({ ...base, negate: true, op: 'plfts', value: 'The Fat Cats' });
    expect(parseFilter('c', 'phfts( french ).a.b')).toEqual({ ...base, op: 'phfts', language: 'french', value: 'a.b' });
    expect(parseFilter('c', 'wfts($my_cfg2).x')).toEqual({ ...base, op: 'wfts', language: '$my_cfg2', value: 'x' });
    expect(parseFilter('c', 'fts(日本語).x')).toMatchObject({ language: '日本語' });
  });
  it('reads (any) and (all) on eq, gt, gte, lt, lte, like, ilike, match and imatch, stars of like lists as %', () => {
    expect(parseFilter('c', 'like(any).{O*,P*}')).toEqual({ ...base, op: 'like', quantifier: 'any', value: '{O%,P%}' });
    expect(parseFilter('c', 'not.ilike(all).{"*a b*",*c}')).toEqual({ ...base, negate: true, op: 'ilike', quantifier: 'all', value: '{"%a b%",%c}' });
    for (const op of ['eq', 'gt', 'gte', 'lt', 'lte', 'match', 'imatch']) {
      expect(parseFilter('c', `${op}(all).{1,*}`)).toEqual({ ...base, op, quantifier: 'all', value: '{1,*}' });
    }
    expect(parseFilter('c', 'like.a*')).toEqual({ ...base, op: 'like', value: 'a%' });
  });
  it('reads the range operators and isdistinct', () => {
    for (const op of ['sl', 'sr', 'nxr', 'nxl', 'adj', 'isdistinct']) expect(parseFilter('c', `${op}.[1,2)`)).toEqual({ ...base, op, value: '[1,2)' });
  });
  it("refuses as PostgREST's grammar does: the column of the furthest failure and what Parsec found there", () => {
    // PostgREST's answers, from its pOpExpr run under Parsec (and its doctests and QuerySpec for the first three).
    const cases: [string, number, string][] = [
      ['noop.0', 1, 'unexpected "o" expecting "not" or operator (eq, gt, ...)'],
      ['fts().value', 5, 'unexpected ")" expecting operator (eq, gt, ...)'],
      ['eq().value', 4, 'unexpected ")" expecting operator (eq, gt, ...)'],
      ['not', 4, 'unexpected end of input expecting delimiter (.)'],
      ['notx.1', 4, 'unexpected "x" expecting delimiter (.)'],
      ['not.between.1', 5, 'unexpected "b" expecting operator (eq, gt, ...)'],
      ['isdistinct', 11, 'unexpected end of input expecting operator (eq, gt, ...)'],
      ['like(alx).1', 6, 'unexpected "x" expecting operator (eq, gt, ...)'],
      ['like(anx).1', 6, 'unexpected "n" expecting operator (eq, gt, ...)'],
      ['like(any', 9, 'unexpected end of input expecting operator (eq, gt, ...)'],
      ['gtex.1', 4, 'unexpected "x" expecting operator (eq, gt, ...)'],
      ['neq(any).{1}', 4, 'unexpected "(" expecting operator (eq, gt, ...)'],
      ['fts(pg_catalog.english).x', 15, 'unexpected "." expecting operator (eq, gt, ...)'],
      ['wfts(english', 13, 'unexpected end of input expecting operator (eq, gt, ...)'],
      ['éq.1', 1, 'unexpected "\\233" expecting "not" or operator (eq, gt, ...)'],
      ['\u0001', 1, 'unexpected "\\SOH" expecting "not" or operator (eq, gt, ...)'],
      ['"x', 1, 'unexpected "\\"" expecting "not" or operator (eq, gt, ...)'],
    ];
    for (const [value, column, details] of cases) {
      let error: unknown;
      try {
        parseFilter('c', value);
      } catch (e) {
        error = e;
      }
      expect(error instanceof RestError && error.body(), value).toEqual({
        code: 'PGRST100',
        message: `"failed to parse filter (${value})" (line 1, column ${column})`,
        details,
        hint: null,
      });
    }
  });
  it('keeps array values whole and reads modifiers inside logic trees', () => {
    const q = parseQuery([['or', '(a.like(any).{x*,y*},b.cs.{1,2},c.fts(english)."a, b",d.eq.{1)']]);
    expect(q.filters).toEqual([
      {
        op: 'or',
        negate: false,
        children: [
          { column: 'a', negate: false, op: 'like', quantifier: 'any', value: '{x%,y%}' },
          { column: 'b', negate: false, op: 'cs', value: '{1,2}' },
          { column: 'c', negate: false, op: 'fts', language: 'english', value: 'a, b' },
          { column: 'd', negate: false, op: 'eq', value: '{1' },
        ],
      },
    ]);
  });
});

describe('parseOrder', () => {
  it('reads several terms with direction and nulls', () => {
    expect(parseOrder('a.desc.nullslast,b,c.nullsfirst')).toEqual([
      { column: 'a', dir: 'desc', nulls: 'last' },
      { column: 'b', dir: undefined, nulls: undefined },
      { column: 'c', dir: undefined, nulls: 'first' },
    ]);
  });
  it('refuses unknown modifiers and trailing commas', () => {
    expect(code(() => parseOrder('a.up'))).toBe('PGRST100');
    expect(code(() => parseOrder('a,'))).toBe('PGRST100');
  });
});

describe('parseQuery', () => {
  it('separates reserved keys, function arguments and filters', () => {
    const q = parseQuery(splitQuery('select=id&limit=5&offset=10&x=7&id=gt.1&apikey=k'), new Set(['x']));
    expect(q.limit).toBe(5);
    expect(q.offset).toBe(10);
    expect([...q.args]).toEqual([['x', '7']]);
    expect(q.filters).toEqual([{ column: 'id', negate: false, op: 'gt', value: '1' }]);
  });
  it('reads logic trees with nesting, negation and quoted values', () => {
    const q = parseQuery(splitQuery('not.or=(a.eq.1,and(b.not.is.null,c.eq."x,(y)"),c.in.(1,"2,3"))'));
    expect(q.filters).toEqual([
      {
        op: 'or',
        negate: true,
        children: [
          { column: 'a', negate: false, op: 'eq', value: '1' },
          {
            op: 'and',
            negate: false,
            children: [
              { column: 'b', negate: true, op: 'is', value: 'null' },
              { column: 'c', negate: false, op: 'eq', value: 'x,(y)' },
            ],
          },
          { column: 'c', negate: false, op: 'in', value: ['1', '2,3'] },
        ],
      },
    ]);
    expect(code(() => parseQuery([['or', '(a.eq.1']]))).toBe('PGRST100');
    expect(code(() => parseQuery([['or', `${'and('.repeat(40)}a.eq.1${')'.repeat(40)}`]]))).toBe('PGRST100');
  });
  it('refuses negative or non-numeric ranges', () => {
    expect(code(() => parseQuery([['limit', '-1']]))).toBe('PGRST100');
    expect(code(() => parseQuery([['offset', 'x']]))).toBe('PGRST100');
    expect(code(() => parseQuery([['a.limit', '-1']]))).toBe('PGRST100');
  });
  it('files the parameters of embedded resources under their path', () => {
    const q = parseQuery([
      ['roles.actors.order', 'last_name.desc'],
      ['roles.actors.first_name', 'like.*Tom*'],
      ['roles.limit', '1'],
      ['roles.not.or', '(character.eq.a,character.eq.b)'],
      ['data->>a', 'eq.x'],
    ]);
    expect(q.embedded.get('roles.actors')).toEqual({
      filters: [{ column: 'first_name', negate: false, op: 'like', value: '%Tom%' }],
      order: [{ column: 'last_name', dir: 'desc', nulls: undefined }],
      limit: undefined,
      offset: undefined,
    });
    expect(q.embedded.get('roles')).toMatchObject({ limit: 1, filters: [{ op: 'or', negate: true }] });
    expect(q.filters).toEqual([{ column: 'data', json: [{ arrow: '->>', key: 'a', index: false }], negate: false, op: 'eq', value: 'x' }]);
    expect(code(() => parseQuery([['a..b', 'eq.1']]))).toBe('PGRST100');
  });
});

describe('query limits', () => {
  const columns = (n: number) => Array.from({ length: n }, (_, i) => `c${i}`).join(',');
  it('takes up to MAX_SELECT_ITEMS select items and one star, and refuses more', () => {
    expect(parseSelect(`*,${columns(MAX_SELECT_ITEMS - 1)}`)).toHaveLength(MAX_SELECT_ITEMS);
    expect(code(() => parseSelect(columns(MAX_SELECT_ITEMS + 1)))).toBe('PGRST100');
    expect(code(() => parseSelect('*,id,*'))).toBe('PGRST100');
  });
  it('takes up to MAX_ORDER_TERMS order terms', () => {
    expect(parseOrder(columns(MAX_ORDER_TERMS))).toHaveLength(MAX_ORDER_TERMS);
    expect(code(() => parseOrder(columns(MAX_ORDER_TERMS + 1)))).toBe('PGRST100');
  });
  it('takes logic trees up to MAX_LOGIC_DEPTH levels', () => {
    const tree = (levels: number) => `(${'and('.repeat(levels - 1)}a.eq.1${')'.repeat(levels - 1)})`;
    expect(code(() => parseQuery([['or', tree(MAX_LOGIC_DEPTH)]]))).toBeUndefined();
    expect(code(() => parseQuery([['or', tree(MAX_LOGIC_DEPTH + 1)]]))).toBe('PGRST100');
  });
});
