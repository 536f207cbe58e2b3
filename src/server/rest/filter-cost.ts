import type { DbRole } from '../db/with-claims';
import { RestError } from './errors';
import { MAX_IN_VALUES, MAX_LIKE_LENGTH, MAX_REGEX_LENGTH, MAX_REGEX_REPEAT } from './query-limits';
import { isLogicTree, type Condition, type Filter } from './parse-query';

/*
 * A first filter against obvious abuse, not the defence: every REST statement runs under a
 * deadline on both databases (statement_timeout on PostgreSQL, the statement watchdog on PGlite),
 * which holds whatever a pattern does. The limits of query-limits.ts refuse what is plainly costly
 * before it reaches the database.
 */

/**
 * What would make PostgreSQL read a pattern otherwise than this check does: a director (`***:`,
 * `***=`) or embedded options at its start (`(?b)` basic syntax, where groups are `\(…\)`, `(?x)`
 * where `#` starts a comment, `(?q)` literal, and the other flags of PostgreSQL's regex engine:
 * c e i m n p s t w). `(?:`, `(?=`, `(?!` and the lookbehinds are groups, and stay allowed.
 */
const DIRECTOR_OR_OPTIONS = /^(\*\*\*|\(\?[a-zA-Z]*\))/;

const REGEX_OPS = new Set(['match', 'imatch']);

function refuse(f: Filter, why: string): RestError {
  return new RestError(400, 'PGRST100', `"failed to parse filter (${f.op}.${String(f.value).slice(0, 40)})"`, why);
}

/**
 * Why a regular expression is refused, or undefined. Backreferences make PostgreSQL's engine
 * backtrack (`(.+)(.+)(.+)(.+)\4\3\2\1` ran 16 s on PostgreSQL over a 76-character text), and a
 * quantified group that holds a quantifier, or a large bound, makes it compile for seconds or fail.
 */
export function regexProblem(pattern: string): string | undefined {
  if (pattern.length > MAX_REGEX_LENGTH) return `regular expressions may be at most ${MAX_REGEX_LENGTH} characters`;
  if (DIRECTOR_OR_OPTIONS.test(pattern)) return 'embedded options and directors (***) are not allowed in regular expressions; use imatch to ignore case';
  // For each open group: whether it holds a quantifier.
  const groups: boolean[] = [];
  let lastGroupQuantified = false;
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i]!;
    const afterGroup = lastGroupQuantified;
    lastGroupQuantified = false;
    if (ch === '\\') {
      const next = pattern[i + 1] ?? '';
      if (/[1-9]/.test(next) || next === 'k') return 'backreferences are not allowed in regular expressions';
      i += 1;
      continue;
    }
    if (inClass) {
      if (ch === ']') inClass = false;
      continue;
    }
    if (ch === '[') {
      inClass = true;
      // A `]` right after `[` or `[^` is a member, not the end.
      if (pattern[i + 1] === '^') i += 1;
      if (pattern[i + 1] === ']') i += 1;
      continue;
    }
    if (ch === '(') {
      groups.push(false);
      continue;
    }
    if (ch === ')') {
      lastGroupQuantified = groups.pop() ?? false;
      // A group holding a quantified group holds a quantifier too.
      if (lastGroupQuantified && groups.length) groups[groups.length - 1] = true;
      continue;
    }
    if (ch === '*' || ch === '+' || ch === '?' || ch === '{') {
      if (ch === '{') {
        const m = /^\{(\d*)(,(\d*))?\}/.exec(pattern.slice(i));
        if (m) {
          const bounds = [m[1], m[3]].filter((b) => b !== undefined && b !== '').map(Number);
          if (bounds.some((b) => b > MAX_REGEX_REPEAT)) return `repetition bounds in regular expressions may be at most ${MAX_REGEX_REPEAT}`;
          i += m[0].length - 1;
        }
      }
      // `*?`, `+?`, `??`: a lazy quantifier is one quantifier, not two.
      if (ch !== '?' || !/[*+?}]/.test(pattern[i - 1] ?? '')) {
        if (afterGroup) return 'a quantified group may not itself contain a quantifier in regular expressions';
        if (groups.length) groups[groups.length - 1] = true;
      }
    }
  }
  return undefined;
}

function check(f: Filter, role: DbRole): void {
  if (REGEX_OPS.has(f.op)) {
    if (role === 'anon') throw refuse(f, 'regular expression filters (match, imatch) need a signed-in user; use like or ilike');
    const why = regexProblem(f.value as string);
    if (why) throw refuse(f, why);
  } else if ((f.op === 'like' || f.op === 'ilike') && (f.value as string).length > MAX_LIKE_LENGTH) {
    throw refuse(f, `like patterns may be at most ${MAX_LIKE_LENGTH} characters`);
  } else if (f.op === 'in' && f.value.length > MAX_IN_VALUES) {
    throw refuse(f, `in lists may hold at most ${MAX_IN_VALUES} values`);
  }
}

/** Refuses, before anything reaches the database, every filter of `conditions` whose cost is not bounded. */
export function checkFilterCost(conditions: readonly Condition[], role: DbRole): void {
  for (const c of conditions) {
    if (isLogicTree(c)) checkFilterCost(c.children, role);
    else check(c, role);
  }
}
