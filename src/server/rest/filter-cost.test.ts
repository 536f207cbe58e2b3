import { describe, expect, it } from 'vitest';
import { regexProblem } from './filter-cost';

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
