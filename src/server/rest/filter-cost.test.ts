import { describe, expect, it } from 'vitest';
import { regexProblem } from './filter-cost';

describe('regexProblem', () => {
  it('accepts ordinary expressions', () => {
    for (const p of ['^node', 'gala|playa', '^[a-z0-9-]{2,8}$', '(ab)+c', 'a*?b', '\\\\1', '[)(]+', '(a|b)?c', 'x{3}']) {
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
});
