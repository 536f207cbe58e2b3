import { describe, expect, it } from 'vitest';
import { RestError } from './errors';
import { arrayElements, checkFilterCost, regexProblem } from './filter-cost';
import { parseFilter, parseQuery } from './parse-query';
import { MAX_FTS_LENGTH, MAX_IN_VALUES, MAX_LIKE_LENGTH } from './query-limits';

describe('regexProblem', () => {
  it('accepts ordinary expressions', () => {
    for (const p of ['^node', 'gala|playa', '^[a-z0-9-]{2,8}$', '(ab)+c', 'a*?b', '\\\\1', '[)(]+', '(a|b)?c', 'x{3}', '(?:ab)c', '(?=a)a', 'a(?i)', 'a***']) {
      expect(regexProblem(p), p).toBeUndefined();
    }
  });

  it('refuses backreferences, nested or large repetitions and long patterns', () => {
    expect(regexProblem('(.+)(.+)\\2\\1')).toMatch(/backreferences/);
    expect(regexProblem('(a*)*b')).toMatch(/quantified group/);
    expect(regexProblem('((a+)b)+')).toMatch(/quantified group/);
    expect(regexProblem('(a{2}){3}')).toMatch(/quantified group/);
    expect(regexProblem('(x+)?')).toMatch(/quantified group/);
    expect(regexProblem('a{1,255}')).toMatch(/at most 20/);
    expect(regexProblem('a{21}')).toMatch(/at most 20/);
    expect(regexProblem('x'.repeat(101))).toMatch(/at most 100 characters/);
  });

  it("refuses PostgreSQL's embedded options and directors, which change how the pattern is read", () => {
    // (?b): basic syntax, where \( \) group and \{ \} bound: 6.4 s on PGlite before this check.
    expect(regexProblem('(?b)\\(.\\{0,105\\}\\)\\{0,105\\}x')).toMatch(/embedded options/);
    for (const flags of ['b', 'c', 'e', 'i', 'm', 'n', 'p', 'q', 's', 't', 'w', 'x', 'bx', 'I', '']) {
      expect(regexProblem(`(?${flags})abc`), flags).toMatch(/embedded options/);
    }
    for (const director of ['***:(a+)+', '***=(a+)+', '***']) expect(regexProblem(director), director).toMatch(/embedded options/);
  });
});

describe('arrayElements', () => {
  it('reads elements as PostgreSQL does: quotes and backslashes removed, unquoted whitespace around dropped, every depth', () => {
    expect(arrayElements('{a, b ,"c, d",e\\,f}')).toEqual(['a', 'b', 'c, d', 'e,f']);
    expect(arrayElements('{{1,2},{3," 4 "}}')).toEqual(['1', '2', '3', ' 4 ']);
    expect(arrayElements('{"",x\\ ,  }')).toEqual(['', 'x ']);
    expect(arrayElements('{}')).toEqual([]);
  });
});

describe('checkFilterCost', () => {
  /** The refusal's details for one filter `col=<value>`, or undefined when it passes. */
  function refusal(value: string, role: 'anon' | 'authenticated' = 'authenticated'): string | null | undefined {
    try {
      checkFilterCost([parseFilter('c', value)], role);
    } catch (e) {
      if (e instanceof RestError && e.code === 'PGRST100') return e.details as string | null;
      throw e;
    }
    return undefined;
  }
  const list = (n: number, item = 'a') => `{${Array<string>(n).fill(item).join(',')}}`;

  it('bounds each pattern of like(any) and like(all), as a like pattern', () => {
    const pattern = 'x'.repeat(MAX_LIKE_LENGTH);
    expect(refusal(`like(any).{a,${pattern}}`)).toBeUndefined();
    expect(refusal(`ilike(all).{a,${pattern}x}`)).toMatch(/like patterns may be at most 1000 characters/);
    // The quotes and escapes of the literal are not part of the pattern.
    expect(refusal(`like(any).{"${pattern.slice(2)}\\*"}`)).toBeUndefined();
  });

  it('bounds the list of every quantified operator as an in list', () => {
    for (const op of ['eq', 'gt', 'gte', 'lt', 'lte', 'like', 'ilike']) {
      expect(refusal(`${op}(any).${list(MAX_IN_VALUES)}`), op).toBeUndefined();
      expect(refusal(`${op}(all).${list(MAX_IN_VALUES + 1)}`), op).toMatch(/lists may hold at most 1000 values/);
    }
  });

  it('checks every regular expression of match(any) and imatch(all) as match does, and refuses them to anon', () => {
    expect(refusal('match(any).{^a,b$}')).toBeUndefined();
    expect(refusal('match(any).{^a,(.+)\\\\1}')).toMatch(/backreferences/);
    // Unquoted, the space before the director is not part of the expression PostgreSQL reads.
    expect(refusal('imatch(all).{^a," ***:abc"}')).toBeUndefined();
    expect(refusal('imatch(all).{^a, ***:abc}')).toMatch(/embedded options/);
    expect(refusal(`match(all).${list(MAX_IN_VALUES + 1)}`)).toMatch(/at most 1000 values/);
    expect(refusal('match(any).{^a}', 'anon')).toMatch(/need a signed-in user/);
    expect(refusal('imatch(any).{}', 'anon')).toMatch(/need a signed-in user/);
  });

  it('bounds full-text queries, inside logic trees too', () => {
    for (const op of ['fts', 'plfts', 'phfts(english)', 'wfts']) {
      expect(refusal(`${op}.${'w'.repeat(MAX_FTS_LENGTH)}`), op).toBeUndefined();
      expect(refusal(`${op}.${'w'.repeat(MAX_FTS_LENGTH + 1)}`), op).toMatch(/full-text search queries may be at most 1000 characters/);
    }
    const tree = parseQuery([['or', `(a.eq.1,b.wfts.${'w'.repeat(MAX_FTS_LENGTH + 1)})`]]).filters;
    expect(() => checkFilterCost(tree, 'authenticated')).toThrow(RestError);
  });

  it('names the operator, its modifier and the start of the value in the message', () => {
    try {
      checkFilterCost([parseFilter('c', `like(all).${list(MAX_IN_VALUES + 1)}`)], 'anon');
    } catch (e) {
      expect((e as RestError).message).toBe(`"failed to parse filter (like(all).{${'a,'.repeat(19)}a)"`);
    }
    expect.assertions(1);
  });
});
